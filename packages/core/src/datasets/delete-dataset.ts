import { datasets, documents, rows } from "@quarry/db";
import { eq, sql } from "drizzle-orm";
import { dropKeywordStatistics, dropVectorGraph } from "../search/search-indexes.ts";
import type { ProjectContext } from "../shared/context.ts";
import type { FileStore } from "../shared/file-store.ts";
import { retryOnContention } from "../shared/write-transaction.ts";
import { requireDataset } from "./require-dataset.ts";

/**
 * Deletes a dataset with its documents, rows and stored files. The database part is one
 * transaction; files go after it commits, so a failure never leaves rows pointing at
 * missing files (an orphaned file is harmless and retried by deleting again).
 */
export async function deleteDataset(
  ctx: ProjectContext,
  datasetId: string,
  files: FileStore,
): Promise<void> {
  const dataset = await requireDataset(ctx, datasetId);
  await retryOnContention(() =>
    ctx.db.transaction(async (tx) => {
      // Exclusive first: writers of the dataset hold its row shared from their first statement
      // (packages/db/CONCURRENCY.md), so this waits for those under way and holds off new ones, and
      // nothing below can wait for a writer that waits for it.
      await tx.execute(sql`SELECT id FROM datasets WHERE id = ${dataset.id} FOR UPDATE`);
      await dropKeywordStatistics(tx, dataset.id);
      await tx.delete(rows).where(eq(rows.datasetId, dataset.id));
      await tx.delete(documents).where(eq(documents.datasetId, dataset.id));
      await tx.delete(datasets).where(eq(datasets.id, dataset.id));
      await dropVectorGraph(tx, dataset.id);
    }),
  );
  await files.deletePrefix(`${dataset.id}/`);
}
