import { type Database, documents, rows } from "@quarry/db";
import { and, eq, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import type { DocumentRecord } from "../documents/document-view.ts";
import { ConflictError, NotFoundError } from "../shared/errors.ts";
import { insertRows } from "./insert-rows.ts";
import type { PreparedRow } from "./prepare-rows.ts";
import type { RowView } from "./row-view.ts";

export type RowWriteMode = "replace" | "append";

/**
 * Writes a document's rows in one transaction: the document row is locked first, so
 * concurrent writers to one document queue up instead of interleaving, and a failure
 * anywhere rolls back to the old rows. `create` makes a missing document (E11); without it a
 * missing document is a 404.
 */
export async function writeDocumentRows(
  db: Database,
  projectId: string,
  dataset: DatasetRecord,
  documentId: string,
  prepared: PreparedRow[],
  mode: RowWriteMode,
  create?: { filename?: string | null },
): Promise<RowView[]> {
  return db.transaction(async (tx) => {
    if (create) {
      await tx
        .insert(documents)
        .values({
          projectId,
          datasetId: dataset.id,
          id: documentId,
          filename: create.filename ?? null,
          status: "ready",
          metadata: {},
        })
        .onConflictDoNothing();
    }
    const document = await lockDocument(tx, dataset.id, documentId);
    if (document.status === "queued" || document.status === "processing") {
      throw new ConflictError(
        `document '${documentId}' is being ingested; write its rows when it is ready or failed`,
      );
    }
    if (mode === "replace") {
      await tx
        .delete(rows)
        .where(and(eq(rows.datasetId, dataset.id), eq(rows.documentId, documentId)));
    }
    const written = await insertRows(tx, projectId, dataset, document, prepared);
    await tx
      .update(documents)
      .set({ status: "ready", error: null, updatedAt: sql`now()` })
      .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, documentId)));
    return written;
  });
}

async function lockDocument(
  db: Database,
  datasetId: string,
  documentId: string,
): Promise<DocumentRecord> {
  const [document] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.datasetId, datasetId), eq(documents.id, documentId)))
    .for("update");
  if (!document) throw new NotFoundError("Document", documentId);
  return document;
}
