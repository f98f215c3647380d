import { rows } from "@quarry/db";
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { requireDataset } from "../datasets/require-dataset.ts";
import { compileFilter } from "../filter/compile-filter.ts";
import type { Page, ProjectContext } from "../shared/context.ts";
import { embeddedColumn } from "./row-input.ts";
import { rowViewColumns } from "./row-queries.ts";
import { type RowView, type RowViewSource, toRowView } from "./row-view.ts";

/** Up to this many matches, a filtered page is cut from the full, index-found match set. */
const MATCH_SET_LIMIT = 10_000;

/**
 * E6: a dataset's rows in insertion order (the identity id), paged, optionally filtered by
 * metadata. Unfiltered pages walk the (dataset_id, id) index. A filtered page first asks for
 * the matching ids without an order (Postgres answers a selective filter from the GIN index
 * on metadata); when they are few, the page is cut from them and fetched by id. A broad
 * filter overflows that set, and walking the id order (stopping at the page) is the fast
 * plan, so that is what runs then. Either way no plan reads the whole dataset for a page.
 */
export async function listRows(
  ctx: ProjectContext,
  datasetId: string,
  page: Page,
  filter?: unknown,
): Promise<RowView[]> {
  const dataset = await requireDataset(ctx, datasetId);
  const inDataset = eq(rows.datasetId, dataset.id);
  if (filter === undefined || filter === null) return orderedPage(ctx, dataset, inDataset, page);
  const condition = and(inDataset, compileFilter(filter, sql`${rows.metadata}`)) as SQL;
  // One statement: the unordered match set (capped), and the page cut from it when the cap
  // was not reached. An empty answer with an overflowing set falls back to the id walk.
  const found = await ctx.db
    .with(
      ctx.db.$with("matches").as(
        ctx.db
          .select({ id: sql<number>`${rows.id}`.as("match_id") })
          .from(rows)
          .where(condition)
          .limit(MATCH_SET_LIMIT + 1),
      ),
    )
    .select(rowViewColumns)
    .from(rows)
    .where(
      and(
        inDataset,
        sql`${rows.id} in (select match_id from matches order by match_id offset ${page.offset} limit ${page.pageSize})`,
        sql`(select count(*) from matches) <= ${MATCH_SET_LIMIT}`,
      ),
    )
    .orderBy(asc(rows.id));
  if (found.length > 0 || !(await overflows(ctx, condition))) return toViews(dataset, found);
  return orderedPage(ctx, dataset, condition, page);
}

/** Whether a filter matches more rows than a page is cut from in memory. */
async function overflows(ctx: ProjectContext, condition: SQL): Promise<boolean> {
  const [row] = await ctx.db.select({ n: sql<number>`count(*)::int` }).from(
    ctx.db
      .select({ id: rows.id })
      .from(rows)
      .where(condition)
      .limit(MATCH_SET_LIMIT + 1)
      .as("m"),
  );
  return (row?.n ?? 0) > MATCH_SET_LIMIT;
}

async function orderedPage(
  ctx: ProjectContext,
  dataset: DatasetRecord,
  where: SQL,
  page: Page,
): Promise<RowView[]> {
  const found = await ctx.db
    .select(rowViewColumns)
    .from(rows)
    .where(where)
    .orderBy(asc(rows.id))
    .offset(page.offset)
    .limit(page.pageSize);
  return toViews(dataset, found);
}

function toViews(
  dataset: DatasetRecord,
  found: (Omit<RowViewSource, "embeddedColumn"> & { embedded: boolean })[],
): RowView[] {
  const column = embeddedColumn(dataset);
  return found.map((row) => toRowView({ ...row, embeddedColumn: row.embedded ? column : null }));
}
