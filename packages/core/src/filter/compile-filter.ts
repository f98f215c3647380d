import { type SQL, sql } from "drizzle-orm";
import { BadRequestError } from "../shared/errors.ts";

/**
 * Compiles a Pinecone-style metadata filter to a SQL condition over a JSONB column
 * (docs/api.md#filters). Semantics:
 * - `{field: value}` is `$eq`; several fields, or several operators on one field, are ANDed.
 * - A string matches a metadata list that contains it. Comparisons are type-strict.
 * - `$ne`/`$nin` follow MongoDB: they match rows without the field, and on a list match only
 *   when no element is equal. `$not` negates an operator expression the same way.
 * - Range operators take numbers; `$in`/`$nin` strings or numbers (at most 10,000).
 * - `{}` matches everything, `$in: []` nothing, `$nin: []` everything.
 * Values and keys always travel as bound parameters; equality and `$in` compile to `@>`
 * containment so the GIN (jsonb_path_ops) index on metadata serves them.
 */
export type Filter = Record<string, unknown>;

export const MAX_IN_VALUES = 10_000;
const MAX_DEPTH = 16;
const CONTAINMENT_IN_LIMIT = 64;
const RANGE = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" } as const;
const FIELD_OPERATORS = new Set([
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$in",
  "$nin",
  "$exists",
  "$not",
]);
const TRUE = sql`true`;
const FALSE = sql`false`;

export function compileFilter(filter: unknown, column: SQL, path = "filter"): SQL {
  return new FilterCompiler(column).filter(filter, path, 0);
}

type Scalar = string | number | boolean;

class FilterCompiler {
  constructor(private readonly column: SQL) {}

  filter(node: unknown, path: string, depth: number): SQL {
    if (depth > MAX_DEPTH)
      throw new BadRequestError(`nested deeper than ${MAX_DEPTH} levels`, path);
    if (!isPlainObject(node)) throw new BadRequestError("must be an object", path);
    const parts: SQL[] = [];
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}.${key}`;
      if (key === "$and" || key === "$or") parts.push(this.logical(key, value, at, depth));
      else if (key === "$not") parts.push(negate(this.filter(value, at, depth + 1)));
      else if (key.startsWith("$")) throw new BadRequestError(`unknown operator '${key}'`, at);
      else parts.push(this.field(key, value, at, depth));
    }
    return and(parts);
  }

  private logical(op: "$and" | "$or", value: unknown, path: string, depth: number): SQL {
    if (!Array.isArray(value) || value.length === 0) {
      throw new BadRequestError("must be a non-empty array of filters", path);
    }
    const parts = value.map((item, i) => this.filter(item, `${path}[${i}]`, depth + 1));
    return op === "$and" ? and(parts) : or(parts);
  }

  private field(key: string, value: unknown, path: string, depth: number): SQL {
    if (!isPlainObject(value)) return this.eq(key, scalar(value, path));
    const entries = Object.entries(value);
    if (entries.length === 0) throw new BadRequestError("operator object is empty", path);
    return and(
      entries.map(([op, operand]) => this.operator(key, op, operand, `${path}.${op}`, depth)),
    );
  }

  private operator(key: string, op: string, operand: unknown, path: string, depth: number): SQL {
    if (!FIELD_OPERATORS.has(op)) throw new BadRequestError(`unknown operator '${op}'`, path);
    switch (op) {
      case "$eq":
        return this.eq(key, scalar(operand, path));
      case "$ne":
        return negate(this.eq(key, scalar(operand, path)));
      case "$in":
        return this.in(key, list(operand, path));
      case "$nin":
        return negate(this.in(key, list(operand, path)));
      case "$exists":
        if (typeof operand !== "boolean") throw new BadRequestError("must be true or false", path);
        return operand ? this.exists(key) : negate(this.exists(key));
      case "$not":
        if (!isPlainObject(operand) || Object.keys(operand).length === 0) {
          throw new BadRequestError("must be a non-empty operator object", path);
        }
        if (depth > MAX_DEPTH)
          throw new BadRequestError(`nested deeper than ${MAX_DEPTH} levels`, path);
        return negate(this.field(key, operand, path, depth + 1));
      default:
        return this.range(key, op as keyof typeof RANGE, operand, path);
    }
  }

  /** Equality by containment: `{k: v}` for scalars, plus `{k: [v]}` for strings in lists. */
  private eq(key: string, value: Scalar): SQL {
    const whole = sql`${this.column} @> ${JSON.stringify({ [key]: value })}::jsonb`;
    if (typeof value !== "string") return whole;
    return sql`(${whole} or ${this.column} @> ${JSON.stringify({ [key]: [value] })}::jsonb)`;
  }

  /**
   * Short lists become ORed containments (index-served); long ones one set-membership test
   * against a single JSON parameter, so 10,000 values stay one bound parameter.
   */
  private in(key: string, values: Scalar[]): SQL {
    const distinct = [...new Set(values)];
    if (distinct.length === 0) return FALSE;
    if (distinct.length <= CONTAINMENT_IN_LIMIT) return or(distinct.map((v) => this.eq(key, v)));
    const field = sql`(${this.column} -> ${key})`;
    const all = JSON.stringify(distinct);
    const strings = JSON.stringify(distinct.filter((v) => typeof v === "string"));
    return sql`coalesce(${field} in (select jsonb_array_elements(${all}::jsonb)) or (jsonb_typeof(${field}) = 'array' and ${field} ?| array(select jsonb_array_elements_text(${strings}::jsonb))), false)`;
  }

  private exists(key: string): SQL {
    return sql`(${this.column} ? ${key})`;
  }

  private range(key: string, op: keyof typeof RANGE, operand: unknown, path: string): SQL {
    if (typeof operand !== "number" || !Number.isFinite(operand)) {
      throw new BadRequestError("range operators take a finite number", path);
    }
    const field = sql`(${this.column} -> ${key})`;
    // CASE fixes the evaluation order: the cast only ever sees numbers. Never NULL.
    return sql`(case when jsonb_typeof(${field}) = 'number' then (${field})::numeric ${sql.raw(RANGE[op])} ${operand}::numeric else false end)`;
  }
}

function scalar(value: unknown, path: string): Scalar {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  throw new BadRequestError("must be a string, a finite number or a boolean", path);
}

function list(value: unknown, path: string): Scalar[] {
  if (!Array.isArray(value)) throw new BadRequestError("must be an array", path);
  if (value.length > MAX_IN_VALUES) {
    throw new BadRequestError(`takes at most ${MAX_IN_VALUES} values`, path);
  }
  return value.map((v, i) => {
    if (typeof v === "string" || (typeof v === "number" && Number.isFinite(v))) return v;
    throw new BadRequestError("must be a string or a finite number", `${path}[${i}]`);
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function and(parts: SQL[]): SQL {
  if (parts.length === 0) return TRUE;
  if (parts.length === 1) return parts[0]!;
  return sql`(${sql.join(parts, sql` and `)})`;
}

function or(parts: SQL[]): SQL {
  if (parts.length === 0) return FALSE;
  if (parts.length === 1) return parts[0]!;
  return sql`(${sql.join(parts, sql` or `)})`;
}

/**
 * Every condition built here is never NULL (containment, `?`, CASE, COALESCE on a NOT NULL
 * column), so NOT gives MongoDB's "missing field matches a negation" semantics.
 */
function negate(condition: SQL): SQL {
  return sql`(not ${condition})`;
}
