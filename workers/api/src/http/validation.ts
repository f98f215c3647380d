import type { Hook } from "@hono/zod-openapi";
import { issuesToBadRequest } from "@quarry/core";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { errorResponse } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
import type { RouteTable } from "./route-table.ts";
import { assertStorable } from "./storable-input.ts";

/**
 * Turns a zod failure into the error envelope, naming the first offending field (core's
 * formatter, which `parseInput` uses for callers that are not HTTP). A valid
 * JSON body must also be storable (no NUL, bounded nesting): schemas with open records
 * (`values`, `filter`) let anything through.
 */
export const validationHook: Hook<unknown, HonoEnv, string, unknown> = (result, c) => {
  if (result.success) {
    if (result.target === "json") assertStorable(result.data, "");
    return;
  }
  const root = result.target === "json" ? "body" : result.target;
  return errorResponse(c, "bad_request", issuesToBadRequest(result.error.issues, root).message);
};

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
