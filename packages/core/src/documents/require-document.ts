import { type Database, documents } from "@quarry/db";
import { requireDataset } from "../datasets/require-dataset.ts";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError } from "../shared/errors.ts";
import { type DocumentKey, whereDocument } from "./document-key.ts";
import type { DocumentRecord } from "./document-view.ts";

/**
 * The document of a dataset of the caller's project: the dataset is checked first, with its
 * auth rule (another project's dataset is a 401), then an unknown document is a 404.
 */
export async function requireDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
): Promise<DocumentRecord> {
  const dataset = await requireDataset(ctx, datasetId);
  const document = await findDocument(ctx.db, {
    projectId: ctx.projectId,
    datasetId: dataset.id,
    documentId,
  });
  if (!document) throw new NotFoundError("Document", documentId);
  return document;
}

/** The document by its full key (project, dataset, id), or undefined; checks nothing else. */
export async function findDocument(
  db: Database,
  key: DocumentKey,
): Promise<DocumentRecord | undefined> {
  const [document] = await db.select().from(documents).where(whereDocument(key));
  return document;
}
