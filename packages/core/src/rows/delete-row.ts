import { rows } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import { requireDataset } from "../datasets/require-dataset.ts";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError } from "../shared/errors.ts";
import { datasetWriteLock, retryOnContention } from "../shared/write-transaction.ts";
import { parseRowId } from "./row-id.ts";

/** E14: deletes one row of the dataset; 404 when the dataset has no such row. */
export async function deleteRow(
  ctx: ProjectContext,
  datasetId: string,
  rowIdParam: string,
): Promise<void> {
  const dataset = await requireDataset(ctx, datasetId);
  const rowId = parseRowId(rowIdParam);
  const deleted = await retryOnContention(() =>
    ctx.db
      .delete(rows)
      .where(and(eq(rows.datasetId, dataset.id), eq(rows.id, rowId), datasetWriteLock(dataset.id)))
      .returning({ id: rows.id }),
  );
  if (deleted.length === 0) throw new NotFoundError("Row", rowId);
}
