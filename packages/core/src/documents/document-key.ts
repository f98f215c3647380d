import { documents } from "@quarry/db";
import { and, eq, inArray, type SQL } from "drizzle-orm";

/** A document by its full key: the project and dataset it belongs to, and its id. */
export interface DocumentKey {
  projectId: string;
  datasetId: string;
  documentId: string;
}

/** The condition that selects the one document of `key`. */
export function whereDocument(key: DocumentKey): SQL {
  return and(
    eq(documents.projectId, key.projectId),
    eq(documents.datasetId, key.datasetId),
    eq(documents.id, key.documentId),
  ) as SQL;
}

/**
 * The document of `key` while its ingestion is unfinished (`queued` or `processing`): the
 * writes that must not overwrite a document that became ready or failed meanwhile.
 */
export function whereDocumentUnfinished(key: DocumentKey): SQL {
  return and(whereDocument(key), inArray(documents.status, ["queued", "processing"])) as SQL;
}
