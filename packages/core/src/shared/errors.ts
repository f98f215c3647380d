/**
 * Domain errors. The domain throws these; only the HTTP edge maps `code` to a status
 * (workers/api/src/http/errors.ts), so the same rules hold for every route.
 */
export const ERROR_CODES = [
  "bad_request",
  "unauthorized",
  "not_found",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "upstream_error",
  "internal",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class BadRequestError extends ServiceError {
  /** `path` names the offending field, e.g. `rows[3].data.text` or `filter.$and[0].year` */
  constructor(
    message: string,
    readonly path?: string,
  ) {
    super("bad_request", path ? `${path}: ${message}` : message);
  }
}

export class UnauthorizedError extends ServiceError {
  constructor(message = "Missing or invalid API key") {
    super("unauthorized", message);
  }
}

export class NotFoundError extends ServiceError {
  constructor(what: string, id: string | number) {
    super("not_found", `${what} '${id}' not found`);
  }
}

export class ConflictError extends ServiceError {
  constructor(message: string) {
    super("conflict", message);
  }
}

export class PayloadTooLargeError extends ServiceError {
  constructor(message: string) {
    super("payload_too_large", message);
  }
}

export class UnsupportedMediaTypeError extends ServiceError {
  constructor(message: string) {
    super("unsupported_media_type", message);
  }
}

export class RateLimitedError extends ServiceError {
  constructor(message: string) {
    super("rate_limited", message);
  }
}

export class UpstreamError extends ServiceError {
  constructor(
    message: string,
    readonly upstreamStatus?: number,
    options?: { cause?: unknown },
  ) {
    super("upstream_error", message, options);
  }
}

/**
 * A write that lost to concurrent writers of the same data every time it was retried: the
 * caller may send it again (429, nothing was written). Contention is never a 500.
 */
export class ContentionError extends ServiceError {
  constructor(attempts: number, options?: { cause?: unknown }) {
    super(
      "rate_limited",
      `the write met concurrent writes to the same data ${attempts} times and was not applied; retry it`,
      options,
    );
  }
}
