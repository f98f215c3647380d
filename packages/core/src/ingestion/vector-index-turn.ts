import { type Database, documents } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import type { VectorIndexMessage } from "./ingest-message.ts";

/**
 * A large upload first, the graph after. While a document of the dataset is part-way through
 * an ingestion of several slices (`processing`), an `index-vectors` message steps aside and
 * comes back later: the upload's rows are already searchable (the backlog is ranked exactly),
 * HNSW inserts are the costliest writes there are, and on the embedded database (one session)
 * they would slow the upload's slices several-fold. A document only `queued` does not hold the
 * graph back: small uploads are written in one slice (`queued` until they are `ready`), and a
 * dataset fed a steady stream of them would otherwise search a backlog growing for minutes,
 * every search ranking all of it exactly (`pnpm bench load`: every row of the dataset in the
 * backlog after 60 s). A long upload cannot starve the graph either: after `maxWaitMs` it
 * indexes anyway. A bulk graph build waits out a burst of writes the same way (`putOff`, core
 * `BULK_BUILD_QUIET_MS`), for a shorter while (`BULK_BUILD_MAX_WAIT_MS`).
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
  if (hasWaitedLongEnough(message, now)) return { kind: "index" };
  if (!(await datasetHasUploadUnderWay(db, message.datasetId))) return { kind: "index" };
  return putOff(message, now);
}

/**
 * Whether `message` has been put off for `maxWaitMs` already (an upload's: 10 minutes; a bulk
 * build's wait for writes to pause: core `BULK_BUILD_MAX_WAIT_MS`): it indexes now, whatever
 * the dataset is doing.
 */
export function hasWaitedLongEnough(
  message: VectorIndexMessage,
  now: number = Date.now(),
  maxWaitMs: number = VECTOR_INDEX_DEFERRAL.maxWaitMs,
): boolean {
  return now - (message.waitingSince ?? now) >= maxWaitMs;
}

/** `message` sent again later, keeping the time it first waited from. */
export function putOff(
  message: VectorIndexMessage,
  now: number = Date.now(),
): Extract<VectorIndexTurn, { kind: "defer" }> {
  return {
    kind: "defer",
    message: { ...message, waitingSince: message.waitingSince ?? now },
    delaySeconds: VECTOR_INDEX_DEFERRAL.delaySeconds,
  };
}

/**
 * The message for the rest of a backlog once this one had its turn: its wait is over, so the
 * next one starts its own (sent on with `waitingSince`, every later turn would index at once).
 */
export function nextTurn(message: VectorIndexMessage): VectorIndexMessage {
  const { waitingSince: _over, ...next } = message;
  return next;
}

async function datasetHasUploadUnderWay(db: Database, datasetId: string): Promise<boolean> {
  const found = await db
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.datasetId, datasetId), eq(documents.status, "processing")))
    .limit(1);
  return found.length > 0;
}
