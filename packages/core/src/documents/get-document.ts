import { documents } from "@quarry/db";
import { requireDataset } from "../datasets/require-dataset.ts";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError } from "../shared/errors.ts";
import { whereDocument } from "./document-key.ts";
import { type DocumentView, toDocumentView } from "./document-view.ts";
import { documentRowCount } from "./row-counts.ts";

/** The document with its row count, in one statement (a progress poll is one round trip). */
export async function getDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
): Promise<DocumentView> {
  const dataset = await requireDataset(ctx, datasetId);
  const [found] = await ctx.db
    .select({ document: documents, rowCount: documentRowCount })
    .from(documents)
    .where(whereDocument({ projectId: ctx.projectId, datasetId: dataset.id, documentId }));
  if (!found) throw new NotFoundError("Document", documentId);
  return toDocumentView(found.document, found.rowCount);
}
