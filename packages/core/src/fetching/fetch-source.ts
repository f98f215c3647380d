import { BadRequestError, PayloadTooLargeError, ServiceError } from "../shared/errors.ts";
import {
  abortable,
  assertPublicDestination,
  parseSourceUrl,
  type ResolveHost,
} from "./destination.ts";
import { sourceFilename } from "./filename.ts";

/**
 * The fetch this module needs: a URL string and an init, nothing more. The global `fetch` of
 * Workers and of Node both fit, and so does a test transport.
 */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface FetchSourceDeps {
  /** The runtime's fetch (Workers' in production). Must honour `redirect: "manual"`. */
  fetch: FetchLike;
  resolveHost: ResolveHost;
  /** `ALLOW_PRIVATE_URLS=true`: skip the address checks (local development, tests). */
  allowPrivate: boolean;
}

export interface FetchLimits {
  /** Largest body accepted, in bytes, after content decoding. */
  maxBytes: number;
  /** Deadline for the whole fetch: DNS, every redirect hop, and reading the body. */
  timeoutMs: number;
  /** Redirects followed before giving up; 0 refuses any redirect. */
  maxRedirects: number;
}

/**
 * - 20 MB: the whole body is held in memory (a Worker has 128 MB), and the parsers need it
 *   whole anyway; bigger documents belong in an upload (100 MB, streamed to R2).
 * - 15 s: generous for one document, short enough that an API call does not hang on it.
 * - 5 redirects: what real sites need (http→https→www→canonical) with room to spare.
 */
export const DEFAULT_FETCH_LIMITS: Readonly<FetchLimits> = Object.freeze({
  maxBytes: 20_000_000,
  timeoutMs: 15_000,
  maxRedirects: 5,
});

export interface FetchedSource {
  bytes: Uint8Array;
  /** The Content-Type header as sent, or null. */
  contentType: string | null;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
  /** Sanitised: from Content-Disposition or the final URL's last path segment; null if none. */
  filename: string | null;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a user-supplied URL for ingestion, refusing to be turned against internal
 * services (SSRF): see `assertPublicDestination` for the address rules. Redirects are
 * followed by hand so that every hop is checked again.
 *
 * Errors (all name `path`): a URL that is malformed, not http(s), carries credentials, points
 * at a non-public address, redirects too often, answers non-2xx, cannot be reached, or does
 * not finish within the deadline is the caller's URL at fault — 400 `bad_request`. A body
 * over `maxBytes` is 413 `payload_too_large` (from Content-Length before reading, or while
 * streaming). Only a failing DNS resolver (our dependency, not the URL) is 502.
 */
export async function fetchSource(
  url: string,
  deps: FetchSourceDeps,
  limits: Partial<FetchLimits> = {},
  path = "url",
): Promise<FetchedSource> {
  const resolved = resolveLimits(limits);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), resolved.timeoutMs);
  try {
    return await fetchWithin(url, deps, resolved, path, controller.signal);
  } catch (error) {
    // Whatever was in flight when the deadline passed (DNS, connect, body) failed because of
    // it; a domain error decided before or at the same time stands.
    if (controller.signal.aborted && !(error instanceof ServiceError)) {
      throw new BadRequestError(
        `the server did not respond within ${formatDuration(resolved.timeoutMs)}`,
        path,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function fetchWithin(
  url: string,
  deps: FetchSourceDeps,
  limits: FetchLimits,
  path: string,
  signal: AbortSignal,
): Promise<FetchedSource> {
  let current = parseSourceUrl(url, path);
  for (let redirects = 0; ; redirects++) {
    if (!deps.allowPrivate) {
      await assertPublicDestination(current, deps.resolveHost, signal, path, redirects > 0);
    }
    // Only GET, without a body, so a 303 (and a 301/302 after POST, by custom) needs no
    // method change and 307/308 have nothing to preserve.
    const response = await send(deps.fetch, current, signal, path);

    if (REDIRECT_STATUSES.has(response.status)) {
      discard(response);
      if (redirects >= limits.maxRedirects) {
        throw new BadRequestError(`redirected more than ${limits.maxRedirects} times`, path);
      }
      const location = response.headers.get("location");
      if (location === null) {
        throw new BadRequestError(
          `the server answered ${response.status} without a Location header`,
          path,
        );
      }
      current = parseSourceUrl(resolveLocation(location, current, path), path, true);
      continue;
    }
    if (response.status === 0) {
      // An opaque redirect: a runtime that hides manual redirects (browsers do) cannot
      // re-check each hop. Workers and Node expose them.
      discard(response);
      throw new Error("fetchSource needs a fetch that exposes redirects (redirect: manual)");
    }
    if (response.status < 200 || response.status > 299) {
      discard(response);
      throw new BadRequestError(`the server answered ${response.status}`, path);
    }

    const declared = contentLength(response.headers);
    if (declared !== null && declared > limits.maxBytes) {
      discard(response);
      throw tooLarge(limits.maxBytes, path);
    }
    const bytes = await readLimited(response.body, limits.maxBytes, signal, path);
    return {
      bytes,
      contentType: response.headers.get("content-type"),
      finalUrl: current.href,
      filename: sourceFilename(response.headers.get("content-disposition"), current),
    };
  }
}

async function send(
  fetchFn: FetchLike,
  url: URL,
  signal: AbortSignal,
  path: string,
): Promise<Response> {
  try {
    return await abortable(
      fetchFn(url.href, {
        method: "GET",
        redirect: "manual",
        signal,
        headers: { accept: "*/*", "user-agent": "Quarry (document fetcher)" },
      }),
      signal,
    );
  } catch (error) {
    if (signal.aborted) throw error;
    throw new BadRequestError(`could not connect to ${url.host}`, path);
  }
}

function resolveLocation(location: string, base: URL, path: string): string {
  try {
    return new URL(location, base).href; // relative Locations are relative to the hop's URL
  } catch {
    throw new BadRequestError("redirected to an invalid URL", path);
  }
}

/**
 * Reads at most `maxBytes` (+ the chunk that crosses it) and cancels the stream once over,
 * so a huge or endless body is never pulled in. Content-Encoding is already undone by fetch,
 * so this counts decoded bytes: a small gzip bomb stops at the limit too.
 */
async function readLimited(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  signal: AbortSignal,
  path: string,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await abortable(reader.read(), signal);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge(maxBytes, path);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    if (error instanceof ServiceError || signal.aborted) throw error;
    throw new BadRequestError("the connection broke before the whole document arrived", path);
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function contentLength(headers: Headers): number | null {
  const value = headers.get("content-length");
  if (value === null || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value);
}

function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

function tooLarge(maxBytes: number, path: string): PayloadTooLargeError {
  return new PayloadTooLargeError(`${path}: the document is larger than ${formatBytes(maxBytes)}`);
}

function resolveLimits(limits: Partial<FetchLimits>): FetchLimits {
  const resolved = { ...DEFAULT_FETCH_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    const least = name === "maxRedirects" ? 0 : 1;
    if (!Number.isInteger(value) || value < least) {
      throw new RangeError(`fetch limit ${name} must be an integer >= ${least}, got ${value}`);
    }
  }
  return resolved;
}

/** 15000 → "15 s", 1500 → "1.5 s", 300 → "300 ms". */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

/** Decimal units, as the limits are written: 20000000 → "20 MB", 65536 → "65.5 KB". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${Number((bytes / 1_000_000).toFixed(1))} MB`;
  if (bytes >= 1_000) return `${Number((bytes / 1_000).toFixed(1))} KB`;
  return `${bytes} bytes`;
}
