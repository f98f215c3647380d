import { ProviderError } from "./errors.ts";

export interface RetryOptions {
  /** Retries after the first attempt (so at most `retries + 1` calls). */
  retries?: number;
  /** Ceiling of the first backoff; doubles per attempt. */
  baseMs?: number;
  /** Cap of any single backoff. */
  maxMs?: number;
  /**
   * Longest `Retry-After` we are willing to sleep. A provider asking for more is not going to
   * recover within one request, so we fail fast with its error instead of holding the request.
   */
  maxRetryAfterMs?: number;
  /** Stops waiting and retrying; the abort reason is thrown. */
  signal?: AbortSignal;
  /** Called before each backoff sleep, e.g. for logging. */
  onRetry?: (error: ProviderError, attempt: number, delayMs: number) => void;
}

/**
 * Runs `fn` until it succeeds, retrying `ProviderError`s marked retryable with exponential
 * backoff and full jitter (a uniform delay in [0, min(maxMs, baseMs·2^n)], which spreads out
 * clients that failed together). A `Retry-After` from the provider replaces the jittered delay.
 * Anything that is not a retryable ProviderError is rethrown at once.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const {
    retries = 4,
    baseMs = 200,
    maxMs = 5000,
    maxRetryAfterMs = 30_000,
    signal,
    onRetry,
  } = options;

  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await fn(attempt);
    } catch (error) {
      if (!(error instanceof ProviderError) || !error.retryable || attempt >= retries) throw error;
      if (signal?.aborted) throw signal.reason;
      const delayMs = retryDelay(error, attempt, { baseMs, maxMs, maxRetryAfterMs });
      if (delayMs === undefined) throw error;
      onRetry?.(error, attempt + 1, delayMs);
      await sleep(delayMs, signal);
    }
  }
}

/** The wait before retry number `attempt + 1`, or undefined when waiting is pointless. */
export function retryDelay(
  error: ProviderError,
  attempt: number,
  options: { baseMs: number; maxMs: number; maxRetryAfterMs: number },
  random: () => number = Math.random,
): number | undefined {
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= options.maxRetryAfterMs ? error.retryAfterMs : undefined;
  }
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
