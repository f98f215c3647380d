import { requireDataset } from "../datasets/require-dataset.ts";
import type { ProjectContext } from "../shared/context.ts";
import { type DocumentView, toDocumentView } from "./document-view.ts";
import { requireDocument } from "./require-document.ts";
import { countRowsByDocument } from "./row-counts.ts";

export async function getDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
): Promise<DocumentView> {
  const dataset = await requireDataset(ctx, datasetId);
  const document = await requireDocument(ctx, dataset.id, documentId);
  const counts = await countRowsByDocument(ctx, dataset.id, [document.id]);
  return toDocumentView(document, counts.get(document.id) ?? 0);
}
