import type { Hook, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { errorResponse } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
import type { RouteTable } from "./route-table.ts";
import { assertStorable } from "./storable-input.ts";

/**
 * Turns a zod failure into the error envelope, naming the first offending field. A valid
 * JSON body must also be storable (no NUL, bounded nesting): schemas with open records
 * (`values`, `filter`) let anything through.
 */
export const validationHook: Hook<unknown, HonoEnv, string, unknown> = (result, c) => {
  if (result.success) {
    if (result.target === "json") assertStorable(result.data, "");
    return;
  }
  return errorResponse(c, "bad_request", describeIssues(result.target, result.error.issues));
};

function describeIssues(target: string, issues: z.core.$ZodIssue[]): string {
  const first = issues[0];
  if (!first) return `invalid ${target}`;
  const path = first.path.length > 0 ? formatPath(first.path) : target === "json" ? "body" : target;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return `${path}: ${first.message}${more}`;
}

function formatPath(path: PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join("");
}

/**
 * A path that exists, called with a method it does not serve: 405 with `Allow`. The envelope's code
 * is `bad_request` because the error codes (docs/api.md#errors) are a closed set without a "method
 * not allowed": like a 400 it tells the caller to change the request, where `not_found` would
 * wrongly say the path does not exist. The status, 405, is what clients act on.
 */
export function methodNotAllowed(c: Context<HonoEnv>, allowed: string[]): Response {
  const reply = errorResponse(
    c,
    "bad_request",
    `${c.req.method} is not allowed on ${c.req.path}; it takes ${allowed.join(", ")}`,
  );
  const headers = new Headers(reply.headers);
  headers.set("Allow", allowed.join(", "));
  return new Response(reply.body, { status: 405, headers });
}

/**
 * zod-openapi refuses a body of an undeclared type with a bare "Unsupported Media Type" (415):
 * name the type the route takes, and the one it got.
 */
export function explainUnsupportedMediaType(
  err: Error,
  c: Context<HonoEnv>,
  routes: RouteTable,
): Error {
  if (!(err instanceof HTTPException) || err.status !== 415) return err;
  if (err.message !== "Unsupported Media Type") return err;
  const expected = routes.bodyTypes(c.req.method, c.req.path);
  if (expected.length === 0) return err;
  const sent = c.req.header("content-type")?.split(";")[0]?.trim().slice(0, 100);
  const problem = sent ? `Unsupported Content-Type "${sent}"` : "Missing Content-Type";
  return new HTTPException(415, {
    message: `${problem}: this endpoint expects Content-Type: ${expected.join(" or ")}`,
    cause: err,
  });
}
