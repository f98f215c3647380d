import {
  abandonedReason,
  calibrateEfSearch,
  foldKeywordDeltas,
  type IngestDeps,
  indexVectorBacklog,
  ingestFailureReason,
  isIngestMessage,
  isPermanentIngestFailure,
  isVectorIndexMessage,
  markDocumentFailed,
  noteIngestRetry,
  type ProjectContext,
  type QueueMessage,
  runIngestSlice,
  vectorIndexTurn,
} from "@quarry/core";
import type { AiBinding, ProviderEnv } from "@quarry/providers";
import { databaseTimeoutMs, openDatabase, r2SourceReader } from "@quarry/worker-kit";
import type { Bindings } from "./env.ts";
import { faultsFrom } from "./fault-injection.ts";

const DEAD_LETTER_QUEUE = "quarry-ingest-dlq";
/** Backoff between redeliveries of a failed slice: 2 s, 4 s, 8 s … capped at 5 minutes. */
const retryDelaySeconds = (attempts: number) => Math.min(2 ** attempts, 300);
/**
 * Backlog rows one `index-vectors` message moves into the graph before it hands the rest to
 * a new message: a few seconds of database time, so slices of other documents interleave.
 */
const VECTOR_INDEX_ROWS_PER_MESSAGE = 2000;

/**
 * The Queue consumer's entry (its composition root). Each message is one bounded slice of
 * one document (`runIngestSlice`); the slice enqueues its successor. A file that cannot be
 * parsed fails its document at once; anything else is retried with backoff, and what
 * exhausts its retries reaches the dead-letter queue, whose handler fails the document, so
 * nothing stays `processing` forever. The other kind of message, `index-vectors`, moves a
 * bounded part of a dataset's vector backlog into its HNSW graph (`indexVectorBacklog`),
 * once the dataset has no document being ingested (`vectorIndexTurn`).
 */
export default {
  async queue(batch, env, ctx) {
    const { db, close } = openDatabase(env.DATABASE_URL, {
      localProxy: env.NEON_LOCAL_PROXY,
      timeoutMs: databaseTimeoutMs(env.DATABASE_TIMEOUT_SECONDS),
    });
    const providers: ProviderEnv = {
      ...(env.OPENAI_API_KEY ? { OPENAI_API_KEY: env.OPENAI_API_KEY } : {}),
      ...(env.OPENAI_BASE_URL ? { OPENAI_BASE_URL: env.OPENAI_BASE_URL } : {}),
      ...(env.AI ? { AI: env.AI as unknown as AiBinding } : {}),
    };
    const send = async (next: QueueMessage, delaySeconds?: number) => {
      await env.INGEST_QUEUE.send(next, {
        contentType: "json",
        ...(delaySeconds ? { delaySeconds } : {}),
      });
    };
    const realDeps: IngestDeps = {
      source: r2SourceReader(env.FILES),
      enqueue: (next) => send(next),
    };
    try {
      for (const message of batch.messages) {
        const body = message.body;
        if (isVectorIndexMessage(body)) {
          // Nothing to fail on the dead-letter queue: the backlog stays searchable (exactly),
          // and the dataset's next write sends another message.
          if (batch.queue === DEAD_LETTER_QUEUE) {
            message.ack();
            continue;
          }
          try {
            const turn = await vectorIndexTurn(db, body);
            if (turn.kind === "defer") {
              await send(turn.message, turn.delaySeconds);
              message.ack();
              continue;
            }
            // The writes that asked for this message appended keyword deltas too: fold them
            // while the dataset has its turn, so searches add up only a few.
            const folded = await foldKeywordDeltas(db, body.datasetId);
            const progress = await indexVectorBacklog(
              db,
              body.datasetId,
              VECTOR_INDEX_ROWS_PER_MESSAGE,
            );
            log("info", "vectors indexed", { dataset: body.datasetId, folded, ...progress });
            // A drained backlog: the graph holds every vector, the moment to measure the
            // candidate list size it needs, when it has grown enough since the last time (the
            // check is one small read). A failed measurement is only logged: the indexing is done.
            if (progress.pending === 0) {
              try {
                // Its queries are embedded with the dataset's own model (the providers').
                const tuning = await calibrateEfSearch(
                  { db, projectId: body.projectId, providers },
                  body.datasetId,
                );
                if (tuning.measured) {
                  log("info", "ef_search calibrated", { dataset: body.datasetId, ...tuning });
                }
              } catch (error) {
                log("warn", "ef_search calibration failed", {
                  dataset: body.datasetId,
                  reason: error instanceof Error ? error.message : String(error),
                });
              }
            }
            // None moved while some wait: another indexer holds them and carries on.
            if (progress.pending > 0 && progress.indexed > 0) await realDeps.enqueue(body);
            message.ack();
          } catch (error) {
            log("warn", "vector indexing failed; retrying", {
              dataset: body.datasetId,
              reason: error instanceof Error ? error.message : String(error),
            });
            message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
          }
          continue;
        }
        if (!isIngestMessage(body)) {
          log("error", "malformed ingest message", { id: message.id });
          message.ack();
          continue;
        }
        if (batch.queue === DEAD_LETTER_QUEUE) {
          await markDocumentFailed(db, body, await abandonedReason(db, body));
          message.ack();
          continue;
        }
        const faults = faultsFrom(env.INGEST_FAULT_RATE, message.attempts);
        const deps = faults ? faults.wrap(realDeps) : realDeps;
        const project: ProjectContext = {
          db: faults ? faults.wrapDatabase(db) : db,
          projectId: body.projectId,
          providers,
        };
        try {
          const started = Date.now();
          const outcome = await runIngestSlice(project, body, deps);
          log("info", "slice", {
            document: body.documentId,
            position: body.cursor?.position ?? 0,
            outcome,
            ms: Date.now() - started,
          });
          if (faults?.crashBeforeAck()) {
            message.retry({ delaySeconds: 0 });
            continue;
          }
          message.ack();
        } catch (error) {
          const reason = ingestFailureReason(error);
          if (isPermanentIngestFailure(error)) {
            await markDocumentFailed(db, body, reason);
            message.ack();
          } else {
            log("warn", "slice failed; retrying", {
              document: body.documentId,
              reason,
              attempts: message.attempts,
            });
            await noteIngestRetry(db, body, reason).catch(() => {});
            message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
          }
        }
      }
    } finally {
      ctx.waitUntil(close());
    }
  },
} satisfies ExportedHandler<Bindings>;

function log(level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown>) {
  console.log(JSON.stringify({ level, msg, ...fields }));
}
