import { requireDataset } from "../datasets/require-dataset.ts";
import type { Page, ProjectContext } from "../shared/context.ts";
import { type DocumentView, toDocumentView } from "./document-view.ts";
import { pageOfDocuments } from "./documents-page.ts";

/** The dataset's documents, oldest first, paged. */
export async function listDocuments(
  ctx: ProjectContext,
  datasetId: string,
  page: Page,
): Promise<DocumentView[]> {
  const dataset = await requireDataset(ctx, datasetId);
  const found = await pageOfDocuments(ctx, dataset.id, page);
  return found.map((d) => toDocumentView(d.document, d.rowCount));
}
