import { documents } from "@quarry/db";
import { and, asc, eq } from "drizzle-orm";
import { requireDataset } from "../datasets/require-dataset.ts";
import type { Page, ProjectContext } from "../shared/context.ts";
import { type DocumentView, toDocumentView } from "./document-view.ts";
import { documentRowCount } from "./row-counts.ts";

export async function listDocuments(
  ctx: ProjectContext,
  datasetId: string,
  page: Page,
): Promise<DocumentView[]> {
  const dataset = await requireDataset(ctx, datasetId);
  const found = await ctx.db
    .select({ document: documents, rowCount: documentRowCount })
    .from(documents)
    .where(and(eq(documents.projectId, ctx.projectId), eq(documents.datasetId, dataset.id)))
    .orderBy(asc(documents.createdAt), asc(documents.id))
    .limit(page.pageSize)
    .offset(page.offset);
  return found.map((d) => toDocumentView(d.document, d.rowCount));
}
