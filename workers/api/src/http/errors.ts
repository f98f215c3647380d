import { z } from "@hono/zod-openapi";
import type { ErrorCode } from "@quarry/core";
import { ServiceError } from "@quarry/core";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { HonoEnv } from "./hono-env.ts";

/** The one mapping from domain error codes to HTTP statuses. */
export const codeToStatus: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  upstream_error: 502,
  internal: 500,
};

const statusToCode = new Map<number, ErrorCode>(
  Object.entries(codeToStatus).map(([code, status]) => [status, code as ErrorCode]),
);

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(codeToStatus) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      request_id: z.string(),
    }),
  })
  .openapi("Error");

export function errorResponse(c: Context<HonoEnv>, code: ErrorCode, message: string): Response {
  // Nothing was done and the same request may succeed in a moment (contention): say when.
  if (code === "rate_limited") c.header("Retry-After", "1");
  return c.json(envelope(c, code, message), codeToStatus[code]);
}

function envelope(c: Context<HonoEnv>, code: ErrorCode, message: string) {
  return { error: { code, message, request_id: c.get("requestId") ?? "" } };
}

/**
 * The envelope for an error met after a 200 was sent (a completion stream that fails
 * mid-way): the same body as `handleError` would give, sent as the stream's last event.
 */
export function errorEvent(c: Context<HonoEnv>, err: unknown): string {
  if (err instanceof ServiceError) return JSON.stringify(envelope(c, err.code, err.message));
  logUnknown(c, err);
  return JSON.stringify(envelope(c, "internal", INTERNAL_MESSAGE));
}

/** Known errors first, then Hono's HTTP exceptions, then the unknown (logged, 500). */
export function handleError(err: Error, c: Context<HonoEnv>): Response {
  if (err instanceof ServiceError) return errorResponse(c, err.code, err.message);
  if (err instanceof HTTPException) {
    const code = statusToCode.get(err.status) ?? (err.status >= 500 ? "internal" : "bad_request");
    return errorResponse(c, code, err.message || "Request failed");
  }
  logUnknown(c, err);
  return errorResponse(c, "internal", INTERNAL_MESSAGE);
}

const INTERNAL_MESSAGE = "Internal error; quote the request id when reporting it";

function logUnknown(c: Context<HonoEnv>, err: unknown): void {
  console.error(
    JSON.stringify({
      level: "error",
      request_id: c.get("requestId"),
      error: String(err),
      // Drivers wrap the failure that matters (drizzle's "Failed query" holds the driver's
      // error, which holds the network's): without the chain the log names the SQL, not why.
      causes: causesOf(err),
      stack: err instanceof Error ? err.stack : undefined,
    }),
  );
}

function causesOf(err: unknown): string[] {
  const causes: string[] = [];
  let cause = err instanceof Error ? err.cause : undefined;
  while (cause !== undefined && causes.length < 5) {
    causes.push(String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return causes;
}
