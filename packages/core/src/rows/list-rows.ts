import { rows } from "@quarry/db";
import { and, asc, eq, sql } from "drizzle-orm";
import { requireDataset } from "../datasets/require-dataset.ts";
import { compileFilter } from "../filter/compile-filter.ts";
import type { Page, ProjectContext } from "../shared/context.ts";
import { embeddedColumn } from "./row-input.ts";
import { rowViewColumns } from "./row-queries.ts";
import { type RowView, toRowView } from "./row-view.ts";

/**
 * E6: a dataset's rows in insertion order (the identity id), paged, optionally filtered by
 * metadata. The (dataset_id, id) index serves the order; a selective filter is served by the
 * GIN index on metadata instead, and the planner picks between them.
 */
export async function listRows(
  ctx: ProjectContext,
  datasetId: string,
  page: Page,
  filter?: unknown,
): Promise<RowView[]> {
  const dataset = await requireDataset(ctx, datasetId);
  const where = [eq(rows.datasetId, dataset.id)];
  if (filter !== undefined && filter !== null) {
    where.push(compileFilter(filter, sql`${rows.metadata}`));
  }
  const found = await ctx.db
    .select(rowViewColumns)
    .from(rows)
    .where(and(...where))
    .orderBy(asc(rows.id))
    .offset(page.offset)
    .limit(page.pageSize);
  const column = embeddedColumn(dataset);
  return found.map((row) => toRowView({ ...row, embeddedColumn: row.embedded ? column : null }));
}
