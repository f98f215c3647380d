/** Default per-attempt deadline of a provider call. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * A signal that aborts when the caller's does or after `timeoutMs`, whichever comes first.
 * The timeout aborts with a `TimeoutError`, the caller with its own reason, which is how we
 * tell "too slow, retry" from "cancelled, stop".
 */
export function deadline(timeoutMs: number, signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/**
 * Settles like `promise`, or rejects with the signal's reason once it aborts. Needed for calls
 * that may ignore the signal (a Workers AI binding is free to), so a deadline always holds.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
