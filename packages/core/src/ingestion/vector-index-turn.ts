import { type Database, documents } from "@quarry/db";
import { and, eq, inArray } from "drizzle-orm";
import type { VectorIndexMessage } from "./ingest-message.ts";

/**
 * Ingestion first, the graph after. While any document of the dataset is queued or being
 * ingested, an `index-vectors` message steps aside and comes back later: its rows are already
 * searchable (the backlog is ranked exactly), HNSW inserts are the costliest writes there are,
 * and on the embedded database (one session) they would slow the uploads' slices several-fold.
 * A steady stream of uploads cannot starve the graph: after `maxWaitMs` it indexes anyway.
 */
export const VECTOR_INDEX_DEFERRAL = {
  delaySeconds: 10,
  maxWaitMs: 10 * 60 * 1000,
} as const;

export type VectorIndexTurn =
  | { kind: "index" }
  | { kind: "defer"; message: VectorIndexMessage; delaySeconds: number };

export async function vectorIndexTurn(
  db: Database,
  message: VectorIndexMessage,
  now: number = Date.now(),
): Promise<VectorIndexTurn> {
  const waitingSince = message.waitingSince ?? now;
  if (now - waitingSince >= VECTOR_INDEX_DEFERRAL.maxWaitMs) return { kind: "index" };
  if (!(await datasetIsIngesting(db, message.datasetId))) return { kind: "index" };
  return {
    kind: "defer",
    message: { ...message, waitingSince },
    delaySeconds: VECTOR_INDEX_DEFERRAL.delaySeconds,
  };
}

async function datasetIsIngesting(db: Database, datasetId: string): Promise<boolean> {
  const found = await db
    .select({ id: documents.id })
    .from(documents)
    .where(
      and(eq(documents.datasetId, datasetId), inArray(documents.status, ["queued", "processing"])),
    )
    .limit(1);
  return found.length > 0;
}
