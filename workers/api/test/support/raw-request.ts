import { Agent, request } from "node:http";
import { inject } from "vitest";
import { codeToStatus } from "../../src/http/errors.ts";
import { resendAfterDevProxyRestart } from "./dev-proxy.ts";
import { HangError } from "./reply-deadline.ts";

/**
 * HTTP exactly as written, for hostile inputs: the path goes out byte for byte (no URL
 * normalisation, so `%00` or a malformed escape reaches the server), any method may carry a
 * body (GET included, as E6/E7 take one) and the headers are only those given. Every request
 * has a deadline: a reply that does not arrive in time is a hang, reported as such.
 */
export interface RawRequest {
  method: string;
  /** path and query, already percent-encoded */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** send the body without a Content-Length (chunked) */
  chunked?: boolean;
}

export interface RawReply {
  status: number;
  headers: Headers;
  text: string;
  /** the parsed JSON body, when the reply is JSON */
  json: unknown;
  ms: number;
}

/**
 * A reply slower than this is a hang. Above the workers' 30 s database deadline (a silent
 * database answers 500 by then), and generous because a 2-core CI runner hosts two stacks
 * whose one PGlite session each serialises every statement: a valid request may queue behind
 * a 1 MiB document being embedded and indexed.
 */
export const REQUEST_TIMEOUT_MS = 45_000;
/** replies are read up to this size; a listing larger than this is not what these suites read */
const MAX_REPLY_BYTES = 8 * 1024 * 1024;
const agent = new Agent({ keepAlive: false });

/**
 * Sends `req` to the shared e2e stack, or to `to` (another stack's base URL). Each request has
 * a connection of its own: nothing is sent on a kept-alive socket the server may be closing at
 * that moment, so a connection that breaks off is this request's fault, never a pooling race's.
 */
export function sendRaw(
  req: RawRequest,
  timeoutMs = REQUEST_TIMEOUT_MS,
  to: string = inject("baseUrl"),
): Promise<RawReply> {
  return resendAfterDevProxyRestart(`${req.method} ${req.path.slice(0, 80)}`, () =>
    sendRawOnce(req, timeoutMs, to),
  );
}

/**
 * `sendRaw` without its resend after the dev proxy's 502 or 503: for the tests of that proxy
 * itself (dev-proxy-keepalive.test.ts), which must see every answer it gives.
 */
export function sendRawOnce(
  req: RawRequest,
  timeoutMs = REQUEST_TIMEOUT_MS,
  to: string = inject("baseUrl"),
): Promise<RawReply> {
  const url = new URL(to);
  const started = performance.now();
  const body = typeof req.body === "string" ? Buffer.from(req.body, "utf8") : req.body;
  const headers: Record<string, string> = { ...req.headers };
  if (body !== undefined && !req.chunked) headers["content-length"] = String(body.byteLength);
  return new Promise((resolve, reject) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const out = request({
      host: url.hostname,
      port: url.port,
      method: req.method,
      path: req.path,
      headers,
      agent,
      signal,
    });
    out.on("error", (error) => {
      reject(
        signal.aborted
          ? new HangError(
              `${req.method} ${req.path.slice(0, 120)}: no reply within ${timeoutMs} ms`,
            )
          : new Error(`${req.method} ${req.path.slice(0, 120)}: request failed: ${error.message}`),
      );
    });
    out.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_REPLY_BYTES) chunks.push(chunk);
      });
      let ended = false;
      const failed = () =>
        reject(
          signal.aborted
            ? new HangError(`the reply did not end within ${timeoutMs} ms`)
            : new Error("the reply broke off before its end"),
        );
      res.on("error", failed);
      res.on("close", () => {
        if (!ended) failed();
      });
      res.on("end", () => {
        ended = true;
        const text = Buffer.concat(chunks).toString("utf8");
        const replyHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (typeof v === "string") replyHeaders.set(k, v);
        }
        let json: unknown;
        if (replyHeaders.get("content-type")?.includes("json")) {
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: replyHeaders,
          text,
          json,
          ms: performance.now() - started,
        });
      });
    });
    if (body === undefined) {
      out.end();
    } else if (req.chunked) {
      // A few writes, so the server sees a streamed body of unknown length.
      const step = Math.max(1, Math.ceil(body.byteLength / 8));
      for (let i = 0; i < body.byteLength; i += step) out.write(body.subarray(i, i + step));
      out.end();
    } else {
      out.end(body);
    }
  });
}

/**
 * What is wrong with a reply that must be an error (docs/api.md#errors): a 4xx whose body is the
 * envelope `{"error":{"code","message","request_id"}}` with a code of the closed set that
 * maps to this very status, and an X-Request-Id header equal to `error.request_id`.
 * Returns the problems (none: an empty list).
 */
export function envelopeProblems(reply: RawReply): string[] {
  const problems: string[] = [];
  if (reply.status < 400 || reply.status > 499) problems.push(`status ${reply.status}, not 4xx`);
  const requestId = reply.headers.get("x-request-id");
  if (!requestId) problems.push("no X-Request-Id header");
  const error = (reply.json as { error?: Record<string, unknown> } | undefined)?.error;
  if (!error || typeof error !== "object") {
    problems.push("no error envelope");
    return problems;
  }
  const code = String(error.code);
  if (!(code in codeToStatus)) problems.push(`code '${code}' is not in the closed set`);
  else if (codeToStatus[code as keyof typeof codeToStatus] !== reply.status) {
    problems.push(`code '${code}' does not go with status ${reply.status}`);
  }
  if (typeof error.message !== "string" || error.message.length === 0) problems.push("no message");
  if (error.request_id !== requestId) problems.push("error.request_id differs from X-Request-Id");
  return problems;
}

/** Runs `work` over `items` with at most `concurrency` at a time, in order of start. */
export async function pool<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** A request a suite sends, named for its problem lines. */
export interface SuiteRequest {
  operation: string;
  label: string;
  request: RawRequest;
}

/**
 * Sends every item (a few at a time) and returns what went wrong, one line per item,
 * "operation — label: problem". `judge` says what is wrong with a reply, or null; a request
 * that fails or hangs is a problem of its own.
 */
export async function sendAndJudge<T extends SuiteRequest>(
  items: readonly T[],
  concurrency: number,
  judge: (item: T, reply: RawReply) => string | null,
): Promise<string[]> {
  const problems = await pool(items, concurrency, async (item) => {
    const what = `${item.operation} — ${item.label}`;
    let reply: RawReply;
    try {
      reply = await sendRaw(item.request);
    } catch (error) {
      return `${what}: ${(error as Error).message}`;
    }
    const problem = judge(item, reply);
    return problem === null ? null : `${what}: ${problem}`;
  });
  return problems.filter((p): p is string => p !== null);
}
