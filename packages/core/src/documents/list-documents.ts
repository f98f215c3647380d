import { documents } from "@quarry/db";
import { and, asc, eq } from "drizzle-orm";
import { requireDataset } from "../datasets/require-dataset.ts";
import type { Page, ProjectContext } from "../shared/context.ts";
import { type DocumentView, toDocumentView } from "./document-view.ts";
import { countRowsByDocument } from "./row-counts.ts";

export async function listDocuments(
  ctx: ProjectContext,
  datasetId: string,
  page: Page,
): Promise<DocumentView[]> {
  const dataset = await requireDataset(ctx, datasetId);
  const found = await ctx.db
    .select()
    .from(documents)
    .where(and(eq(documents.projectId, ctx.projectId), eq(documents.datasetId, dataset.id)))
    .orderBy(asc(documents.createdAt), asc(documents.id))
    .limit(page.pageSize)
    .offset(page.offset);
  const counts = await countRowsByDocument(
    ctx,
    dataset.id,
    found.map((d) => d.id),
  );
  return found.map((d) => toDocumentView(d, counts.get(d.id) ?? 0));
}
