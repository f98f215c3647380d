import { rows } from "@quarry/db";
import { and, asc, eq, inArray, type SQLWrapper, sql } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";

/** The columns every row view reads; never the vectors themselves. */
export const rowViewColumns = {
  id: rows.id,
  datasetId: rows.datasetId,
  documentId: rows.documentId,
  data: rows.data,
  metadata: rows.metadata,
  imagePaths: rows.imagePaths,
  embedded: sql<boolean>`(${rows.embedding} is not null)`,
};

/**
 * A page's rows, by the ids `ids` selects (a subquery that already cut the page), in id order:
 * the last step of every E6 page, which finds its ids without reading `rows` whole.
 */
export function rowsOfPage(ctx: ProjectContext, datasetId: string, ids: SQLWrapper) {
  return ctx.db
    .select(rowViewColumns)
    .from(rows)
    .where(and(eq(rows.datasetId, datasetId), inArray(rows.id, ids)))
    .orderBy(asc(rows.id));
}
