import { documents, rows } from "@quarry/db";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { type Equality, pageOfTermMatches } from "./equality-page.ts";
import { rowViewColumns } from "./row-queries.ts";
import { afterRow, type RowsPage } from "./rows-page.ts";

/**
 * Three service keys have no terms in `row_filter_terms` (migration 0028): `rowId`, `url` and
 * `chunk` (docs/api.md#service-metadata-keys). The service writes them on every row and users
 * cannot. Their terms were the dearest to write: a `rowId` term's key is unique and a `chunk`
 * term's is one per document, so each went to a place of its own in the terms' primary key.
 * A single equality on one of them is answered without terms:
 * - `rowId` is the row's id: that row, off the primary key of `rows`;
 * - `url` is its document's url: the rows of the url's document, off that document's
 *   `documentId` term (in id order). A url of several documents takes the general path;
 * - `chunk` matches a row of each document at most: the general path, whose match set the copy's
 *   GIN index finds.
 */
const KEYS_WITHOUT_TERMS: ReadonlySet<string> = new Set(["rowId", "url", "chunk"]);

/** Whether a single equality's key has no terms, so that `pageOfServiceKeyMatches` answers. */
export function hasNoTerms(term: Equality): boolean {
  return KEYS_WITHOUT_TERMS.has(term.key);
}

/**
 * A page of a single equality on a key without terms, as `pageOfTermMatches` gives it (each row
 * with `matches`, the filter evaluated on the row); undefined when the general path answers.
 */
export async function pageOfServiceKeyMatches(
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
