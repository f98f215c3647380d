import type { ProjectContext } from "../shared/context.ts";
import { type DocumentView, toDocumentView } from "./document-view.ts";
import { requireDocument } from "./require-document.ts";
import { countRowsByDocument } from "./row-counts.ts";

export async function getDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
): Promise<DocumentView> {
  const document = await requireDocument(ctx, datasetId, documentId);
  const counts = await countRowsByDocument(ctx, document.datasetId, [document.id]);
  return toDocumentView(document, counts.get(document.id) ?? 0);
}
