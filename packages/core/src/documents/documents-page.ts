import { documents } from "@quarry/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Page, ProjectContext } from "../shared/context.ts";
import { documentRowCount } from "./row-counts.ts";

/**
 * The page's document ids first (the creation-order index), then those documents with their
 * row counts. Asked in one select, Postgres computes a skipped document's columns too, its row
 * count lookup included: a page at offset 2,500 looked up 2,600 counts to return 100.
 */
export function pageOfDocuments(ctx: ProjectContext, datasetId: string, page: Page) {
  const ofDataset = and(eq(documents.projectId, ctx.projectId), eq(documents.datasetId, datasetId));
  const ids = ctx.db
    .select({ id: documents.id })
    .from(documents)
    .where(ofDataset)
    .orderBy(asc(documents.createdAt), asc(documents.id))
    .limit(page.pageSize)
    .offset(page.offset);
  return ctx.db
    .select({ document: documents, rowCount: documentRowCount })
    .from(documents)
    .where(and(ofDataset, inArray(documents.id, ids)))
    .orderBy(asc(documents.createdAt), asc(documents.id));
}
