import { type Database, documents } from "@quarry/db";
import { and, eq, sql } from "drizzle-orm";
import { whereDocumentUnfinished } from "../documents/document-key.ts";
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
 * What a person is told about a failure: the message, except that a failed database query
 * (drizzle wraps the driver's error in one whose message is the SQL text and every
 * parameter, i.e. the document's own rows) is told by the database's reason alone.
 */
export function ingestFailureReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message.startsWith("Failed query:")) {
    const cause = error.cause instanceof Error ? error.cause.message : "unknown cause";
    return `the database refused the write: ${cause}`;
  }
  return error.message;
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
    .where(whereDocumentUnfinished(message));
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
