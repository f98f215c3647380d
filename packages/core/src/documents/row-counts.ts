import { rows } from "@quarry/db";
import { and, count, eq, inArray } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";

/** Row counts of some documents of one dataset, by document id (documents without rows: 0). */
export async function countRowsByDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentIds: string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (documentIds.length === 0) return counts;
  const found = await ctx.db
    .select({ documentId: rows.documentId, n: count() })
    .from(rows)
    .where(and(eq(rows.datasetId, datasetId), inArray(rows.documentId, documentIds)))
    .groupBy(rows.documentId);
  for (const { documentId, n } of found) counts.set(documentId, Number(n));
  return counts;
}
