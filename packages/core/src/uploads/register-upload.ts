import { documents } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import { requireDataset } from "../datasets/require-dataset.ts";
import { markDocumentFailed } from "../documents/mark-document-failed.ts";
import type { IngestMessage } from "../ingestion/ingest-message.ts";
import type { ProjectContext } from "../shared/context.ts";
import { ConflictError } from "../shared/errors.ts";
import type { UploadFields } from "./upload-fields.ts";

/** The file as the edge stored it. */
export interface StoredUpload {
  /** R2 key, `<dataset>/<document>/<filename>`; the document's url is `/<key>` */
  key: string;
  filename: string;
  contentType: string | null;
}

export interface UploadDeps {
  /** sends the first ingest message (the Queue at the edge) */
  enqueue(message: IngestMessage): Promise<void>;
  /**
   * Runs once the id is reserved and before the message is sent: the edge moves a file it
   * had to store under a provisional key (the id came after the file part) to `stored.key`.
   */
  place?(): Promise<void>;
}

export interface UploadReply {
  body: "OK";
  document_id: string;
}

function conflict(documentId: string) {
  return new ConflictError(`document '${documentId}' already exists in this dataset`);
}

/**
 * Early duplicate check, for when the id arrives before the file: a 409 before a byte is
 * stored. `registerUpload` still decides (ON CONFLICT), since a concurrent request may win.
 */
export async function assertDocumentIdFree(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
): Promise<void> {
  const dataset = await requireDataset(ctx, datasetId);
  const [found] = await ctx.db
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, documentId)));
  if (found) throw conflict(documentId);
}

/**
 * E9 after the file is stored: creates the document `queued` and sends its first ingest
 * message. A duplicate id is a 409 (the caller removes its file). A `queued` document never
 * stays without a message: when placing the file or sending fails, the row is removed again
 * (or, if even that fails, marked failed) and the error propagates.
 */
export async function registerUpload(
  ctx: ProjectContext,
  datasetId: string,
  fields: UploadFields & { documentId: string },
  stored: StoredUpload,
  deps: UploadDeps,
): Promise<UploadReply> {
  const dataset = await requireDataset(ctx, datasetId);
  const target = { projectId: ctx.projectId, datasetId: dataset.id, documentId: fields.documentId };
  const inserted = await ctx.db
    .insert(documents)
    .values({
      projectId: ctx.projectId,
      datasetId: dataset.id,
      id: fields.documentId,
      filename: stored.filename,
      url: `/${stored.key}`,
      storageKey: stored.key,
      contentType: stored.contentType,
      status: "queued",
      progress: null,
      metadata: fields.metadata,
      chunkSize: fields.chunkSize,
      chunkOverlap: fields.chunkOverlap,
    })
    .onConflictDoNothing()
    .returning({ id: documents.id });
  if (inserted.length === 0) throw conflict(fields.documentId);

  try {
    await deps.place?.();
    await deps.enqueue({ v: 1, ...target, cursor: null });
  } catch (error) {
    await ctx.db
      .delete(documents)
      .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, fields.documentId)))
      .catch(() =>
        markDocumentFailed(
          ctx.db,
          target,
          "the upload could not be queued for ingestion; delete the document and upload it again",
        ),
      )
      .catch(() => {});
    throw error;
  }
  return { body: "OK", document_id: fields.documentId };
}
