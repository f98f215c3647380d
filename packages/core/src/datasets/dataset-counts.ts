import { documents, keywordDocuments } from "@quarry/db";
import { count, inArray, sql } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";

export interface DatasetCounts {
  row_count: number;
  document_count: number;
}

/** What a dataset created a moment ago holds. */
export const EMPTY_DATASET_COUNTS: DatasetCounts = { row_count: 0, document_count: 0 };

/**
 * Rows and documents of some datasets, counted when read. No writer keeps a count on the
 * dataset's row: that one row, updated by every writer, is the contention issue 14 removed
 * (packages/db/CONCURRENCY.md). Rows are summed from `keyword_documents`, the per-document row
 * counts the row triggers already keep exactly (for every row, with or without terms), so a
 * count reads one entry per document, not one per row; documents are counted on the
 * `documents` primary key (dataset_id, id), an index-only range.
 */
export async function countDatasetContents(
  ctx: ProjectContext,
  datasetIds: string[],
): Promise<Map<string, DatasetCounts>> {
  const counts = new Map<string, DatasetCounts>(
    datasetIds.map((id) => [id, { ...EMPTY_DATASET_COUNTS }]),
  );
  if (datasetIds.length === 0) return counts;
  const [rowCounts, documentCounts] = await Promise.all([
    ctx.db
      .select({
        datasetId: keywordDocuments.datasetId,
        n: sql<string>`coalesce(sum(${keywordDocuments.rowCount}), 0)`,
      })
      .from(keywordDocuments)
      .where(inArray(keywordDocuments.datasetId, datasetIds))
      .groupBy(keywordDocuments.datasetId),
    ctx.db
      .select({ datasetId: documents.datasetId, n: count() })
      .from(documents)
      .where(inArray(documents.datasetId, datasetIds))
      .groupBy(documents.datasetId),
  ]);
  for (const { datasetId, n } of rowCounts) {
    const entry = counts.get(datasetId);
    if (entry) entry.row_count = Number(n);
  }
  for (const { datasetId, n } of documentCounts) {
    const entry = counts.get(datasetId);
    if (entry) entry.document_count = Number(n);
  }
  return counts;
}
