import { documents, rows } from "@quarry/db";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { type Equality, pageOfTermMatches } from "./equality-page.ts";
import { rowViewColumns } from "./row-queries.ts";
import { afterRow, type RowsPage } from "./rows-page.ts";

/**
 * Two service keys hold a column's value (docs/api.md#service-metadata-keys): `rowId` is the
 * row's id and `url` its document's url. The service writes them on every row and users
 * cannot, so they have no terms in `row_filter_terms` (migration 0028: a `rowId` term's key is
 * unique, the dearest kind to write). A single equality on one of them is answered from the
 * column instead:
 * - `rowId`: the row of that id, off the primary key of `rows`;
 * - `url`: the rows of the url's document, off that document's `documentId` term (whose range
 *   is in id order). A url of several documents has no single term: the general path takes it.
 * As from `pageOfTermMatches`, each row comes with `matches`, the filter evaluated on the row.
 * Undefined when the general path must answer.
 */
export async function pageOfMirroredKeyMatches(
  ctx: ProjectContext,
  datasetId: string,
  term: Equality,
  filterOnRows: SQL,
  page: RowsPage,
) {
  if (term.key === "rowId") return pageOfRowId(ctx, datasetId, term.value, filterOnRows, page);
  if (term.key !== "url") return undefined;
  if (typeof term.value !== "string") return [];
  const ofUrl = await ctx.db
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.datasetId, datasetId), eq(documents.url, term.value)))
    .limit(2);
  if (ofUrl.length > 1) return undefined;
  if (ofUrl.length === 0) return [];
  const document = { key: "documentId", value: (ofUrl[0] as { id: string }).id };
  return pageOfTermMatches(ctx, datasetId, document, filterOnRows, page);
}

/** Whether `pageOfMirroredKeyMatches` is the path of a single equality. */
export function isOnMirroredKey(term: Equality): boolean {
  return term.key === "rowId" || term.key === "url";
}

/** `{rowId: n}`: one row at most; another type of value (`"7"`, `7.5`) matches nothing. */
export function pageOfRowId(
  ctx: ProjectContext,
  datasetId: string,
  value: Equality["value"],
  filterOnRows: SQL,
  page: RowsPage,
) {
  const isId = typeof value === "number" && Number.isSafeInteger(value);
  return ctx.db
    .select({
      ...rowViewColumns,
      matches: sql<boolean>`(${filterOnRows})`,
    })
    .from(rows)
    .where(
      and(
        eq(rows.datasetId, datasetId),
        isId ? eq(rows.id, value) : sql`false`,
        afterRow(rows.id, page.after),
      ),
    )
    .offset(page.offset)
    .limit(page.pageSize);
}
