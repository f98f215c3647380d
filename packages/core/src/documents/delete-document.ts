import { documents, rows } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import type { FileStore } from "../shared/file-store.ts";
import { writeTransaction } from "../shared/write-transaction.ts";
import { requireDocument } from "./require-document.ts";

/**
 * Removes the document, its rows (one transaction) and then its stored file. The document's row
 * goes first, so the transaction locks it before any of its rows, as every writer does.
 */
export async function deleteDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
  files: FileStore,
): Promise<void> {
  const document = await requireDocument(ctx, datasetId, documentId);
  await writeTransaction(ctx.db, document.datasetId, async (tx) => {
    await tx
      .delete(documents)
      .where(and(eq(documents.datasetId, document.datasetId), eq(documents.id, document.id)));
    await tx
      .delete(rows)
      .where(and(eq(rows.datasetId, document.datasetId), eq(rows.documentId, document.id)));
  });
  if (document.storageKey) await files.delete(document.storageKey);
}
