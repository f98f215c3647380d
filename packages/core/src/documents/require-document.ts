import { documents } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError } from "../shared/errors.ts";
import type { DocumentRecord } from "./document-view.ts";

/** Call after `requireDataset`, which has already checked the dataset belongs to the caller. */
export async function requireDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
): Promise<DocumentRecord> {
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
  if (!document) throw new NotFoundError("Document", documentId);
  return document;
}
