import { rowFilterTerms, rows } from "@quarry/db";
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { rowViewColumns } from "./row-queries.ts";
import { afterRow, type RowsPage } from "./rows-page.ts";

/** `{key: value}` or `{key: {$eq: value}}`: one field, one scalar, nothing else. */
export interface Equality {
  key: string;
  value: string | number | boolean;
}

/**
 * The filter as a single equality, or undefined. Such a filter matches exactly the rows that have
 * the term (key, value) — the value itself, or a string in a list (docs/api.md#filters) — which is
 * what `row_filter_terms` indexes. Call it on a filter `compileFilter` accepted.
 */
export function singleEquality(filter: unknown): Equality | undefined {
  if (!isObject(filter)) return undefined;
  const entries = Object.entries(filter);
  if (entries.length !== 1) return undefined;
  const [key, operand] = entries[0] as [string, unknown];
  if (key.startsWith("$")) return undefined;
  const value =
    isObject(operand) && Object.keys(operand).length === 1 && "$eq" in operand
      ? operand.$eq
      : operand;
  if (typeof value === "string" || typeof value === "boolean") return { key, value };
  if (typeof value === "number" && Number.isFinite(value)) return { key, value };
  return undefined;
}

/**
 * A page of a single-equality filter: the first entries of the term's range in
 * `row_filter_terms` (its primary key: in id order, from the index alone once vacuumed), then
 * those rows by id. Each row comes with `matches`, the filter evaluated on the row itself:
 * false only if another term shares the key, when the caller must take the general path.
 * `row_filter_terms` and `quarry_filter_term_key` are the database's: packages/db/README.md.
 */
export function pageOfTermMatches(
  ctx: ProjectContext,
  datasetId: string,
  term: Equality,
  filterOnRows: SQL,
  page: RowsPage,
) {
  const ids = ctx.db
    .select({ id: rowFilterTerms.rowId })
    .from(rowFilterTerms)
    .where(
      and(
        eq(
          rowFilterTerms.termKey,
          sql`quarry_filter_term_key(${datasetId}, ${term.key}, ${JSON.stringify(term.value)}::jsonb)`,
        ),
        afterRow(rowFilterTerms.rowId, page.after),
      ),
    )
    .orderBy(asc(rowFilterTerms.rowId))
    .offset(page.offset)
    .limit(page.pageSize);
  return ctx.db
    .select({
      ...rowViewColumns,
      matches: sql<boolean>`(${and(eq(rows.datasetId, datasetId), filterOnRows)})`,
    })
    .from(rows)
    .where(sql`${rows.id} in ${ids}`)
    .orderBy(asc(rows.id));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
