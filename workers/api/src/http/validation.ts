import type { Hook, z } from "@hono/zod-openapi";
import { errorResponse } from "./errors.ts";
import type { HonoEnv } from "./hono-env.ts";
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
