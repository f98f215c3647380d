import type { ProjectContext } from "../shared/context.ts";
import { ServiceError } from "../shared/errors.ts";
import type { FileOpener, StoredFile } from "../shared/file-store.ts";
import { requireDocument } from "./require-document.ts";

export interface DocumentFile extends StoredFile {
  /** the document's file name: as uploaded (sanitised), given to E5, or the stored name */
  filename: string;
  /** as stored, else as the document recorded it, else application/octet-stream */
  contentType: string;
}

/**
 * The original file of a document, to stream back as it was stored: uploads, and the E5
 * sources the ingest worker reads (fetched PDFs, fetched files over 4 MB, content over
 * 2,000,000 characters). A document without a stored file — E5 content or a fetched page
 * parsed at once, or rows written with E11–E13 — is a 404 that says so, as is a file that
 * is no longer in storage.
 */
export async function openDocumentFile(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
  files: FileOpener,
): Promise<DocumentFile> {
  const document = await requireDocument(ctx, datasetId, documentId);
  if (!document.storageKey) {
    throw new ServiceError(
      "not_found",
      `document '${document.id}' has no stored file: it was created from inline content, rows or a page parsed on arrival, and its rows hold its text`,
    );
  }
  const file = await files.open(document.storageKey);
  if (!file) {
    throw new ServiceError(
      "not_found",
      `the file of document '${document.id}' is no longer in storage; upload it again`,
    );
  }
  return {
    ...file,
    filename: document.filename ?? document.storageKey.split("/").pop() ?? "",
    contentType: file.contentType ?? document.contentType ?? "application/octet-stream",
  };
}
