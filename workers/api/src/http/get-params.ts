import { BadRequestError } from "@quarry/core";
import type { Context } from "hono";
import type { HonoEnv } from "./hono-env.ts";
import { assertStorable } from "./storable-input.ts";

/** Bodies on GET are small parameter objects; anything larger is not a listing request. */
const MAX_GET_BODY_BYTES = 1024 * 1024;

/**
 * Parameters of a listing that the original contract sends as a JSON body on GET (E6, E7).
 * Many clients cannot send a body with GET, so the query string works too
 * (docs/api.md#pagination); when both carry a field, the body wins. Query values arrive as
 * text; JSON-typed ones (`filter`) are parsed.
 */
export async function readGetParams(
  c: Context<HonoEnv>,
  jsonFields: readonly string[] = [],
): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(c.req.query())) {
    params[key] = jsonFields.includes(key) ? parseJsonParam(value, key) : value;
  }
  const body = await c.req.raw.text();
  if (body.length > MAX_GET_BODY_BYTES) throw new BadRequestError("is too large", "body");
  if (body.trim() === "") return params;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BadRequestError("is not valid JSON", "body");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new BadRequestError("must be a JSON object", "body");
  }
  assertStorable(parsed, "");
  return { ...params, ...parsed };
}

function parseJsonParam(value: string, key: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new BadRequestError("is not valid JSON", key);
  }
  assertStorable(parsed, key);
  return parsed;
}

/** An integer parameter from a body number or a query string, within bounds; `fallback` when absent. */
export function integerParam<F extends number | undefined>(
  value: unknown,
  name: string,
  { min, max, fallback }: { min: number; max: number; fallback: F },
): number | F {
  if (value === undefined || value === null || value === "") return fallback;
  const n = typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new BadRequestError(`must be an integer from ${min} to ${max}`, name);
  }
  return n;
}
