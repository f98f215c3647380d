import { type Database, documents } from "@quarry/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { ServiceError } from "../shared/errors.ts";
import type { IngestMessage } from "./ingest-message.ts";

/**
 * Whether a slice failure is the file's fault (retrying cannot help: fail the document now)
 * or the world's (database, provider, storage: retry with backoff, then dead-letter).
 */
export function isPermanentIngestFailure(error: unknown): boolean {
  return (
    error instanceof ServiceError &&
    ["bad_request", "unsupported_media_type", "payload_too_large"].includes(error.code)
  );
}

/**
 * Records the latest transient failure on a document still in progress, so the dead-letter
 * handler can say why ingestion was abandoned.
 */
export async function noteIngestRetry(
  db: Database,
  message: IngestMessage,
  reason: string,
): Promise<void> {
  await db
    .update(documents)
    .set({ error: `retrying after: ${reason}`.slice(0, 1000), updatedAt: sql`now()` })
    .where(
      and(
        eq(documents.projectId, message.projectId),
        eq(documents.datasetId, message.datasetId),
        eq(documents.id, message.documentId),
        inArray(documents.status, ["queued", "processing"]),
      ),
    );
}

/** The reason a dead-lettered document ends `failed` with, from its last recorded failure. */
export async function abandonedReason(db: Database, message: IngestMessage): Promise<string> {
  const [document] = await db
    .select({ error: documents.error })
    .from(documents)
    .where(and(eq(documents.datasetId, message.datasetId), eq(documents.id, message.documentId)));
  const last = document?.error?.replace(/^retrying after: /, "");
  return `ingestion failed repeatedly and was abandoned${last ? ` (last error: ${last})` : ""}; upload the file again`;
}
