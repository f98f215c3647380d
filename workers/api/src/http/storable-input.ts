import { BadRequestError } from "@quarry/core";
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "./hono-env.ts";

/**
 * Input Postgres can take. Every string a request carries ends up as a query parameter or
 * in a text or jsonb column: Postgres refuses U+0000 in both (the query fails: a 500), and
 * jsonb refuses an unpaired surrogate (JSON.stringify writes it as a `\ud800` escape, which
 * is no character). So text must be well-formed Unicode without NUL, as document ids
 * already are.
 */

/**
 * Deeper JSON is refused: jsonb parsing recurses per level. Postgres fails with "stack depth
 * limit exceeded"; the embedded database (PGlite) is worse: at about 6,000 levels a query
 * silently returns no rows (an UPDATE … RETURNING looks like a lost race), from about 7,000
 * it spins for minutes holding its only session. Nothing legitimate comes close: a filter is
 * at most 16 levels (about 35 of JSON).
 */
export const MAX_JSON_DEPTH = 64;

const NUL = "\u0000";
/** a high surrogate not followed by a low one, or a low one not preceded by a high one */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Throws a 400 naming the first string or key with a NUL or an unpaired surrogate, or the
 * first level nested too deep.
 */
export function assertStorable(value: unknown, root: string): void {
  const pending: { value: unknown; path: string; depth: number }[] = [
    { value, path: root, depth: 0 },
  ];
  // Iterative: the value may be nested far deeper than the call stack allows.
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: v, path, depth } = next;
    if (typeof v === "string") {
      checkText(v, path);
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw new BadRequestError(`is nested deeper than ${MAX_JSON_DEPTH} levels`, path);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        pending.push({ value: v[i], path: `${path}[${i}]`, depth: depth + 1 });
      }
      continue;
    }
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i]!;
      const at = path === "" ? key : `${path}.${key}`;
      checkText(key, at);
      pending.push({ value: item, path: at, depth: depth + 1 });
    }
  }
}

function checkText(text: string, path: string): void {
  if (text.includes(NUL)) throw nulError(path);
  if (UNPAIRED_SURROGATE.test(text)) {
    throw new BadRequestError("is not well-formed Unicode (an unpaired surrogate)", path || "body");
  }
}

function nulError(path: string): BadRequestError {
  return new BadRequestError("must not contain NUL (\\u0000) characters", path || "body");
}

/**
 * The URL's part of the rule: a `%00` in the path (an id that cannot exist, and that
 * Postgres cannot even compare) or a NUL in a query parameter is a 400 before any lookup.
 * Runs after authentication, so a request without a valid key is still a 401.
 */
export const storableUrl = createMiddleware<HonoEnv>(async (c, next) => {
  const raw = c.req.url;
  const query = raw.indexOf("?");
  const pathname = query === -1 ? raw : raw.slice(0, query);
  if (/%00/.test(pathname)) throw nulError("path");
  if (query !== -1) {
    for (const [key, values] of Object.entries(c.req.queries())) {
      if (key.includes(NUL) || values.some((v) => v.includes(NUL))) throw nulError(key);
    }
  }
  await next();
});
