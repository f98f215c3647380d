import http from "node:http";
import https from "node:https";
import { parseServerTiming, type ServerTimingFigures } from "./server-timing.ts";

/**
 * A keep-alive JSON client on node:http. Benchmarks time requests on reused connections, as a
 * real client would; `fetch` (undici) hides its pooling and refuses a body on GET, which E6
 * accepts. Any non-2xx reply throws an `HttpError` carrying the error envelope, which aborts
 * the benchmark: a figure measured over error replies would be meaningless.
 */
export interface RequestOptions {
  /** bearer token for the `authorization` header */
  token?: string;
  /** sent as JSON, on any method (GET included) */
  body?: unknown;
  /** sent as it is, with its content type, in place of `body` (a multipart form, say) */
  encoded?: EncodedBody;
  query?: Record<string, string | number>;
}

export interface Reply<T> {
  status: number;
  body: T;
  /** from the request's start until the last byte of the reply, in milliseconds */
  ms: number;
  bytes: number;
  /** what the reply's Server-Timing says of the server's part of `ms` */
  serverTiming: ServerTimingFigures | undefined;
}

export interface EncodedBody {
  bytes: Uint8Array;
  contentType: string;
}

export class HttpError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly responseText: string,
  ) {
    super(`${method} ${path} → ${status}: ${responseText.slice(0, 2000)}`);
    this.name = "HttpError";
  }
}

export interface HttpClient {
  readonly baseUrl: string;
  request<T>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  get<T>(path: string, options?: RequestOptions): Promise<Reply<T>>;
  post<T>(path: string, body: unknown, options?: RequestOptions): Promise<Reply<T>>;
  /** POSTs `form` as `multipart/form-data` (an upload) */
  postForm<T>(path: string, form: FormData, options?: RequestOptions): Promise<Reply<T>>;
  /** closes the pooled connections */
  close(): void;
}

export function createHttpClient(
  baseUrl: string,
  options: { maxSockets?: number } = {},
): HttpClient {
  const base = new URL(baseUrl);
  const transport = base.protocol === "https:" ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });

  function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> {
    const url = new URL(path, base);
    for (const [key, value] of Object.entries(opts.query ?? {})) {
      url.searchParams.set(key, String(value));
    }
    const encoded =
      opts.encoded ??
      (opts.body === undefined
        ? undefined
        : { bytes: Buffer.from(JSON.stringify(opts.body)), contentType: "application/json" });
    const headers: Record<string, string | number> = { accept: "application/json" };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (encoded) {
      headers["content-type"] = encoded.contentType;
      headers["content-length"] = encoded.bytes.byteLength;
    }
    const label = `${url.pathname}${url.search}`;

    const attempt = () =>
      new Promise<Reply<T>>((resolve, reject) => {
        const start = process.hrtime.bigint();
        const req = transport.request(url, { method, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const ms = Number(process.hrtime.bigint() - start) / 1e6;
            const raw = Buffer.concat(chunks);
            const text = raw.toString("utf8");
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              reject(new HttpError(method, label, status, text));
              return;
            }
            try {
              const body = (text.length > 0 ? JSON.parse(text) : undefined) as T;
              const timing = res.headers["server-timing"];
              const serverTiming = parseServerTiming(
                Array.isArray(timing) ? timing.join(", ") : timing,
              );
              resolve({ status, body, ms, bytes: raw.length, serverTiming });
            } catch {
              reject(new HttpError(method, label, status, `not JSON: ${text.slice(0, 200)}`));
            }
          });
        });
        req.on("error", (error: NodeJS.ErrnoException) => reject(staleSocketAware(req, error)));
        req.end(encoded?.bytes);
      });
    return resendOnStaleSocket(attempt);
  }

  return {
    baseUrl: base.origin,
    request,
    get: (path, opts) => request("GET", path, opts),
    post: (path, body, opts) => request("POST", path, { ...opts, body }),
    postForm: async (path, form, opts) =>
      request("POST", path, { ...opts, encoded: await encodeForm(form) }),
    close: () => agent.destroy(),
  };
}

/** A form's `multipart/form-data` bytes and content type (with its boundary), as fetch sends them. */
export async function encodeForm(form: FormData): Promise<EncodedBody> {
  const encoded = new Request("http://form.invalid/", { method: "POST", body: form });
  const contentType = encoded.headers.get("content-type");
  if (!contentType) throw new Error("a form without a content type");
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), contentType };
}

/** A request that failed on a pooled socket the server had already closed. */
class StaleSocketError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

/**
 * A request's error, marked when it failed on a reused keep-alive socket before the server
 * read it (reset or broken pipe): `resendOnStaleSocket` sends such a request again.
 */
export function staleSocketAware(req: http.ClientRequest, error: NodeJS.ErrnoException): Error {
  const stale = req.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE");
  return stale ? new StaleSocketError(error) : error;
}

/**
 * Runs `attempt` again (up to `retries` times) when it failed on a stale socket. A pooled
 * keep-alive socket can be closed by the server's idle timeout just as a request goes out on it
 * (more often while this process is busy: the embedded database runs in it, synchronously, for
 * seconds under heavy writes); the request then dies with "socket hang up" before the server
 * has read it. Node's documented remedy is to send it again. Any other failure, and a stale
 * socket past the retries, is thrown as it came.
 */
export function resendOnStaleSocket<T>(attempt: () => Promise<T>, retries = 2): Promise<T> {
  return attempt().catch((error: unknown) => {
    if (retries > 0 && error instanceof StaleSocketError) {
      return resendOnStaleSocket(attempt, retries - 1);
    }
    throw error instanceof StaleSocketError ? error.cause : error;
  });
}
