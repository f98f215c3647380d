/**
 * Every API error is the envelope `{"error":{"code","message","request_id"}}` (docs/api.md,
 * "Errors"); the console shows its message where the request was made.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

interface Envelope {
  error?: { code?: unknown; message?: unknown; request_id?: unknown };
}

/** An ApiError from a reply's status and (parsed) body, whatever the body turned out to be. */
export function apiErrorOf(status: number, body: unknown, requestId: string | null): ApiError {
  const error = (body as Envelope | null)?.error;
  const code = typeof error?.code === "string" ? error.code : `http_${status}`;
  const message =
    typeof error?.message === "string"
      ? error.message
      : `The API answered ${status} without an error message.`;
  const id = typeof error?.request_id === "string" ? error.request_id : requestId;
  return new ApiError(status, code, message, id);
}

/** A person-readable message for anything thrown (network failures included). */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return `Could not reach the API (${error.message}).`;
  if (error instanceof Error) return error.message;
  return String(error);
}
