import { type Database, documents } from "@quarry/db";
import { type DocumentKey, whereDocumentUnfinished } from "./document-key.ts";

/**
 * Ends a document in `failed` with a reason a person can act on. Only unfinished documents
 * change: a late dead-letter delivery must not overwrite a document that became ready.
 */
export async function markDocumentFailed(
  db: Database,
  target: DocumentKey,
  reason: string,
): Promise<void> {
  await db
    .update(documents)
    .set({ status: "failed", error: reason, updatedAt: new Date() })
    .where(whereDocumentUnfinished(target));
}
