import { rowFilterMetadata, rows } from "@quarry/db";
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { Page, ProjectContext } from "../shared/context.ts";
import { rowsOfPage, rowViewColumns } from "./row-queries.ts";
import { afterRow } from "./rows-page.ts";

/**
 * The statements of a filtered E6 page. None reads `rows` to find the matches: they run over
 * `row_filter_metadata`, the narrow copy of the rows' metadata, and only the page's rows are
 * fetched from `rows` by id. (The metadata GIN index is lossy, so every match is rechecked on
 * its heap page; on `rows` that is a wide page per match, which at 100k rows no longer fits
 * the local database's buffer cache; on the copy ~50 rows share a page.)
 * The copy is kept by triggers on `rows`: packages/db/README.md.
 */

/** Up to this many matches, a filtered page is cut from the full, index-found match set. */
export const MATCH_SET_LIMIT = 10_000;

/**
 * A compiled filter over the copy, scoped to one dataset and to the rows after the page's
 * `after`: the match set, the overflow count and the walk in id order all start there.
 */
export function matchingRows(datasetId: string, filter: SQL, after?: number): SQL {
  return and(
    eq(rowFilterMetadata.datasetId, datasetId),
    afterRow(rowFilterMetadata.rowId, after),
    filter,
  ) as SQL;
}

/** The copy's metadata column, for `compileFilter`. */
export const filterColumn = sql`${rowFilterMetadata.metadata}`;

/**
 * One statement: the unordered match set (capped; Postgres finds it through the copy's GIN
 * index), and the page cut from it when the cap was not reached. Empty when the page is past
 * the matches or the set overflows.
 */
export function pageOfFewMatches(
  ctx: ProjectContext,
  datasetId: string,
  matching: SQL,
  page: Page,
) {
  const matches = ctx.db.$with("matches").as(
    ctx.db
      .select({ id: sql<number>`${rowFilterMetadata.rowId}`.as("match_id") })
      .from(rowFilterMetadata)
      .where(matching)
      .limit(MATCH_SET_LIMIT + 1),
  );
  return ctx.db
    .with(matches)
    .select(rowViewColumns)
    .from(rows)
    .where(
      and(
        // Redundant with the copy's dataset_id: `rows` alone decides what a dataset shows.
        eq(rows.datasetId, datasetId),
        sql`${rows.id} in (select match_id from matches order by match_id offset ${page.offset} limit ${page.pageSize})`,
        sql`(select count(*) from matches) <= ${MATCH_SET_LIMIT}`,
      ),
    )
    .orderBy(asc(rows.id));
}

/**
 * The page of a broad filter, which overflows the match set: the copy walked in id order
 * (its primary key), stopping at the page, then the page's rows by id. That is the plan with
 * statistics; without them the planner cannot tell a broad filter from a selective one and
 * may bitmap the copy and sort it, which still reads narrow pages only.
 */
export function pageOfManyMatches(
  ctx: ProjectContext,
  datasetId: string,
  matching: SQL,
  page: Page,
) {
  const ids = ctx.db
    .select({ id: rowFilterMetadata.rowId })
    .from(rowFilterMetadata)
    .where(matching)
    .orderBy(asc(rowFilterMetadata.rowId))
    .offset(page.offset)
    .limit(page.pageSize);
  return rowsOfPage(ctx, datasetId, ids);
}

/** Whether a filter matches more rows than a page is cut from in memory. */
export async function overflows(ctx: ProjectContext, matching: SQL): Promise<boolean> {
  const [row] = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(
    ctx.db
      .select({ id: rowFilterMetadata.rowId })
      .from(rowFilterMetadata)
      .where(matching)
      .limit(MATCH_SET_LIMIT + 1)
      .as("m"),
  );
  return (row?.n ?? 0) > MATCH_SET_LIMIT;
}
