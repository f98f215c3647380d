import { documents } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import type { DocumentRecord } from "../documents/document-view.ts";
import type { ProjectContext } from "../shared/context.ts";

/** The document if it exists (dataset already authorised by the caller), else null. */
export async function findDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
): Promise<DocumentRecord | null> {
  const [document] = await ctx.db
    .select()
    .from(documents)
    .where(
      and(
        eq(documents.projectId, ctx.projectId),
        eq(documents.datasetId, datasetId),
        eq(documents.id, documentId),
      ),
    );
  return document ?? null;
}
