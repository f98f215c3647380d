import { ApiError, messageOf } from "../api/errors.ts";

/**
 * An error where it happened: the API envelope's message (which names the offending field),
 * and its request id to quote. `role="alert"` so screen readers announce it.
 */
export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div className="notice error" role="alert">
      <p>{messageOf(error)}</p>
      {error instanceof ApiError && error.requestId && (
        <p className="muted small">
          {error.code} · request {error.requestId}
        </p>
      )}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
