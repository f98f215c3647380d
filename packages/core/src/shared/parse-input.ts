import type { z } from "zod";
import { BadRequestError } from "./errors.ts";

/**
 * Request schemas live next to their operations (`*-input.ts`); the HTTP edge validates with
 * them before calling the domain. Callers that are not HTTP (the ingest worker, benches, the
 * local stack, tests) validate untrusted input here, and get the same 400 the edge gives.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: InputPlace = "body",
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw issuesToBadRequest(result.error.issues, where);
  return result.data;
}

/**
 * How a failure names its field: a whole request part (`"body"`, `"query"`: named only when
 * the issue has no path of its own), or a value found at a field (`{at: "metadata"}`, which
 * prefixes every path: `metadata.year`).
 */
export type InputPlace = string | { at: string };

/**
 * The one formatter of zod failures (the edge uses it too): the first issue, named by its
 * field path (`rows[3].metadata.year: expected number`), and how many more there are.
 */
export function issuesToBadRequest(
  issues: readonly z.core.$ZodIssue[],
  where: InputPlace,
): BadRequestError {
  const first = issues[0] && closestIssue(issues[0]);
  const base = typeof where === "string" ? "" : where.at;
  const whole = typeof where === "string" ? where : where.at;
  if (!first) return new BadRequestError("is invalid", whole);
  // An unknown field is named by its own path (`rows[0].extra`), as every other field is.
  const unknown = first.code === "unrecognized_keys" ? first.keys[0] : undefined;
  const at = unknown === undefined ? first.path : [...first.path, unknown];
  const path = at.length > 0 ? formatPath(at, base) : whole;
  const message = unknown === undefined ? first.message : "unknown field";
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new BadRequestError(`${message}${more}`, path);
}

function formatPath(path: readonly PropertyKey[], base: string): string {
  return path.reduce<string>(
    (out, p) =>
      typeof p === "number" ? `${out}[${p}]` : out === "" ? String(p) : `${out}.${String(p)}`,
    base,
  );
}

/**
 * A union names the branch the value chose by its shape: `prompt: [1]` is a list, so the
 * failure is the list's (`prompt[0]: must be a string`), not "matches no branch". When no
 * branch, or more than one, got past the value's own type, the union's issue stands.
 */
function closestIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "invalid_union") return issue;
  const deeper = issue.errors.filter(
    (branch) => branch.length > 0 && branch.every((inner) => inner.path.length > 0),
  );
  const inner = deeper.length === 1 ? deeper[0]?.[0] : undefined;
  if (inner === undefined) return issue;
  return closestIssue({ ...inner, path: [...issue.path, ...inner.path] });
}
