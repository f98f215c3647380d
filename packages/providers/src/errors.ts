import { APICallError } from "@ai-sdk/provider";
import { RetryError } from "ai";

/**
 * What went wrong, in the terms the HTTP edge maps to statuses: `invalid_model` is the caller's
 * fault (400), `rate_limited` is 429, `upstream` and `timeout` are the provider's (502/504).
 */
export type ProviderErrorKind = "invalid_model" | "rate_limited" | "upstream" | "timeout";

export interface ProviderErrorOptions {
  /** The provider's HTTP status, when there was a response. */
  status?: number;
  /** Whether the same call may succeed if repeated; defaults from `kind` and `status`. */
  retryable?: boolean;
  /** How long the provider asked us to wait (`Retry-After`), in milliseconds. */
  retryAfterMs?: number;
  cause?: unknown;
}

export class ProviderError extends Error {
  override readonly name = "ProviderError";
  readonly kind: ProviderErrorKind;
  readonly status?: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;

  constructor(kind: ProviderErrorKind, message: string, options: ProviderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    this.retryable = options.retryable ?? defaultRetryable(kind, options.status);
  }
}

function defaultRetryable(kind: ProviderErrorKind, status: number | undefined): boolean {
  switch (kind) {
    case "invalid_model":
      return false;
    case "rate_limited":
    case "timeout":
      return true;
    case "upstream":
      return status !== undefined && status >= 500;
  }
}

/**
 * The error for a non-2xx provider response: 429 → rate_limited, 408 → timeout (both retryable),
 * 5xx → upstream retryable, any other status → upstream and not retried (a bad key or a bad
 * request fails the same way every time).
 */
export function providerErrorFromStatus(
  status: number,
  message: string,
  options: { headers?: HeaderSource; cause?: unknown } = {},
): ProviderError {
  const retryAfterMs = options.headers ? parseRetryAfter(options.headers) : undefined;
  const common = { status, cause: options.cause, retryAfterMs };
  if (status === 429) return new ProviderError("rate_limited", message, common);
  if (status === 408) return new ProviderError("timeout", message, common);
  return new ProviderError("upstream", message, { ...common, retryable: status >= 500 });
}

/**
 * Classifies anything a provider call threw. The AI SDK reports HTTP failures as `APICallError`
 * (with status and headers) and network failures as an `APICallError` without a status but
 * marked retryable; `RetryError` only appears when the SDK retried itself, and then its last
 * error is the one that matters. Whatever is left (a response we could not parse, a bug) is
 * an upstream failure that repeating will not fix.
 */
export function toProviderError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (RetryError.isInstance(error)) return toProviderError(error.lastError);
  if (APICallError.isInstance(error)) {
    const message = `${error.message} (${error.url})`;
    if (error.statusCode !== undefined) {
      return providerErrorFromStatus(error.statusCode, message, {
        ...(error.responseHeaders ? { headers: error.responseHeaders } : {}),
        cause: error,
      });
    }
    return new ProviderError("upstream", message, { retryable: error.isRetryable, cause: error });
  }
  if (isTimeoutError(error)) {
    return new ProviderError("timeout", "the provider did not answer in time", { cause: error });
  }
  if (isNetworkError(error)) {
    return new ProviderError("upstream", `cannot reach the provider: ${messageOf(error)}`, {
      retryable: true,
      cause: error,
    });
  }
  return new ProviderError("upstream", messageOf(error), { retryable: false, cause: error });
}

/** `AbortSignal.timeout()` aborts with a `TimeoutError` DOMException (in workerd and Node). */
export function isTimeoutError(error: unknown): boolean {
  return errorName(error) === "TimeoutError";
}

export function isAbortError(error: unknown): boolean {
  return errorName(error) === "AbortError";
}

// fetch() rejects with a TypeError when the connection fails ("fetch failed" in Node,
// "Network connection lost." in workerd). The AI SDK already wraps these for its own calls;
// this catches the rest without retrying every TypeError (most are bugs).
function isNetworkError(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /fetch failed|failed to fetch|network|connection|socket|ECONN/i.test(error.message)
  );
}

function errorName(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "name" in error
    ? String(error.name)
    : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export type HeaderSource = Headers | Record<string, string | undefined>;

/**
 * `Retry-After` in milliseconds: OpenAI's `retry-after-ms` first (finer), then the standard
 * header as delta-seconds or an HTTP date. Undefined when absent, unparsable or negative.
 */
export function parseRetryAfter(
  headers: HeaderSource,
  now: number = Date.now(),
): number | undefined {
  const get = (name: string): string | undefined =>
    headers instanceof Headers ? (headers.get(name) ?? undefined) : lookup(headers, name);

  const ms = get("retry-after-ms");
  if (ms !== undefined && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = get("retry-after")?.trim();
  if (!after) return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

// Header records from the AI SDK are lower-cased, but a hand-built one may not be.
function lookup(headers: Record<string, string | undefined>, name: string): string | undefined {
  const direct = headers[name];
  if (direct !== undefined) return direct;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}
