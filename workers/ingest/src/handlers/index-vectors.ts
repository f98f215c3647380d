import {
  BULK_BUILD_MAX_WAIT_MS,
  calibrateEfSearch,
  flushPendingIndexEntries,
  foldKeywordDeltas,
  hasWaitedLongEnough,
  indexVectors,
  nextTurn,
  putOff,
  reclaimVectorBacklog,
  type VectorIndexMessage,
  vectorIndexTurn,
} from "@quarry/core";
import { log, reasonOf } from "@quarry/worker-kit";
import type { HandlerDeps, MessageHandler } from "../handler.ts";
import { ack, backoffSeconds, retryAfter } from "../outcome.ts";

/**
 * Backlog rows one `index-vectors` message moves into the graph before it hands the rest to
 * a new message: a few seconds of database time, so slices of other documents interleave.
 */
export const VECTOR_INDEX_ROWS_PER_MESSAGE = 2000;

/** A graph another indexer is building: this message looks again after this long. */
export const GRAPH_BUILDING_RECHECK_SECONDS = 30;

/**
 * Moves a dataset's vector backlog into its HNSW graph (`indexVectors`: a bounded part row by
 * row, or all of a large backlog by a bulk build), once the dataset has no document being
 * ingested (`vectorIndexTurn`; until then the message comes back later).
 */
export const handleIndexVectors: MessageHandler<VectorIndexMessage> = async (
  message,
  delivery,
  deps,
) => {
  const { db } = deps;
  try {
    // The writes that asked for this message left their rows' entries in the search indexes'
    // pending lists: moved into the indexes here rather than by a search or a writer. Index-wide
    // and cheap, so not held back with the dataset's turn: under a steady stream of uploads the
    // turn waits, while the searches read what the writes left pending.
    await bestEffort(message, "search index pending entries not flushed", () =>
      flushPendingIndexEntries(db),
    );
    const turn = await vectorIndexTurn(db, message);
    if (turn.kind === "defer") {
      await deps.send(turn.message, { delaySeconds: turn.delaySeconds });
      return ack;
    }
    // The writes that asked for this message appended keyword deltas too: fold them while
    // the dataset has its turn, so searches add up only a few.
    const folded = await foldKeywordDeltas(db, message.datasetId);
    const progress = await indexVectors(db, message.datasetId, {
      maxRows: VECTOR_INDEX_ROWS_PER_MESSAGE,
      builds: deps.graphBuilds,
      evenIfWritten: hasWaitedLongEnough(message, Date.now(), BULK_BUILD_MAX_WAIT_MS),
    });
    if (progress.waitingForQuiet) {
      // A bulk build is due, but the dataset is being written: rebuilt now, the graph would be
      // due again before long (the rows are searchable meanwhile, from the backlog).
      const later = putOff(message);
      await deps.send(later.message, { delaySeconds: later.delaySeconds });
      log("info", "vector graph build waits for the writes to pause", {
        dataset: message.datasetId,
        pending: progress.pending,
      });
      return ack;
    }
    log("info", "vectors indexed", { dataset: message.datasetId, folded, ...progress });
    // The backlog's pages freed at once rather than at autovacuum's next look.
    if (progress.indexed > 0) {
      await bestEffort(message, "vector backlog vacuum failed", () =>
        reclaimVectorBacklog(deps.graphBuilds.session),
      );
    }
    if (progress.graph === "building") {
      // Another indexer's bulk build: it calibrates when it is done; this looks again later
      // in case that build is cut short (its own message is then retried too).
      await deps.send(message, { delaySeconds: GRAPH_BUILDING_RECHECK_SECONDS });
      return ack;
    }
    // Calibrated on a valid graph only (on a partition searched exactly, any list size would
    // measure a perfect recall), but without waiting for the backlog to drain: under a steady
    // stream of writes it never does, and the dataset kept its family's default list for good
    // (`pnpm bench load`: 400 for the whole minute, where 100 was measured once it stopped).
    // A bulk build made a new graph, which the list size measured on the old one may not suit
    // (`pnpm bench rebuild`: recall@10 0.93 after 60k → 100k rows at the old size): measured
    // again whatever its growth, for a cost (~15 s of a core at 100k) small beside the build's.
    if (progress.graph === "valid") await calibrate(message, deps, progress.bulk);
    // None moved while some wait: another indexer holds them and carries on.
    if (progress.pending > 0 && progress.indexed > 0) await deps.send(nextTurn(message));
    return ack;
  } catch (error) {
    log("warn", "vector indexing failed; retrying", {
      dataset: message.datasetId,
      reason: reasonOf(error),
    });
    return retryAfter(backoffSeconds(delivery.attempts));
  }
};

/**
 * Upkeep the message does beside its indexing, whose failure is only logged: the rows are
 * searchable and in the graph either way.
 */
async function bestEffort(
  message: VectorIndexMessage,
  failure: string,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    log("warn", failure, { dataset: message.datasetId, reason: reasonOf(error) });
  }
}

/**
 * Measures the candidate list size the graph needs when it has grown enough since the last
 * time (`calibrateEfSearch` decides on the graph's own size, so rows still in the backlog
 * neither trigger nor skew it), or is a new graph (`newGraph`: a bulk build's). The check is
 * one small read, plus a count of the graph's vectors while the dataset has outgrown the due
 * size and its graph has not yet. A failed measurement is only logged: the indexing is done.
 */
async function calibrate(
  message: VectorIndexMessage,
  deps: HandlerDeps,
  newGraph: boolean,
): Promise<void> {
  try {
    // Its queries are embedded with the dataset's own model (the providers').
    const tuning = await calibrateEfSearch(
      { db: deps.db, projectId: message.projectId, providers: deps.providers },
      message.datasetId,
      { rebuilt: newGraph },
    );
    if (tuning.measured) {
      log("info", "ef_search calibrated", { dataset: message.datasetId, ...tuning });
    }
  } catch (error) {
    log("warn", "ef_search calibration failed", {
      dataset: message.datasetId,
      reason: reasonOf(error),
    });
  }
}
