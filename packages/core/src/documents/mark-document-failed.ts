import { type Database, documents } from "@quarry/db";
import { and, eq, inArray } from "drizzle-orm";

/**
 * Ends a document in `failed` with a reason a person can act on. Only unfinished documents
 * change: a late dead-letter delivery must not overwrite a document that became ready.
 */
export async function markDocumentFailed(
  db: Database,
  target: { projectId: string; datasetId: string; documentId: string },
  reason: string,
): Promise<void> {
  await db
    .update(documents)
    .set({ status: "failed", error: reason, updatedAt: new Date() })
    .where(
      and(
        eq(documents.projectId, target.projectId),
        eq(documents.datasetId, target.datasetId),
        eq(documents.id, target.documentId),
        inArray(documents.status, ["queued", "processing"]),
      ),
    );
}
