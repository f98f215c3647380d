import type { QueueMessage } from "@quarry/core";
import {
  bindingsValidator,
  log,
  openDatabase,
  openGraphBuildSession,
  providerEnv,
  queueSender,
  r2SourceReader,
  reasonOf,
} from "@quarry/worker-kit";
import { ingestEnvSchema } from "./env.ts";
import type { HandlerDeps } from "./handler.ts";
import { type IngestHandlers, ingestHandlers } from "./handlers/index.ts";
import { applyOutcome, backoffSeconds, type Outcome, retryAfter } from "./outcome.ts";
import { routeMessage } from "./route-message.ts";

const configOf = bindingsValidator(ingestEnvSchema);

/** Replaces handlers for one batch: the local stack's fault injection is the only user. */
export type WrapHandlers = (handlers: IngestHandlers, env: Env) => IngestHandlers;

/**
 * The Queue consumer's composition root, the only file that knows it is a Worker: it
 * validates the bindings once, builds the database, storage, queue and providers once per
 * batch, hands each message to its handler (route-message.ts) and applies the outcome.
 * A handler that throws is retried with backoff like any transient failure.
 */
export function createIngestWorker(wrap: WrapHandlers = (handlers) => handlers) {
  return {
    async queue(batch, env, ctx) {
      const config = configOf(env);
      const handlers = wrap(ingestHandlers, env);
      const { db, close } = openDatabase(config.DATABASE_URL, {
        localProxy: config.NEON_LOCAL_PROXY,
        timeoutMs: config.DATABASE_TIMEOUT_SECONDS * 1000,
      });
      const graphBuild = openGraphBuildSession(config.DATABASE_URL);
      const deps: HandlerDeps = {
        db,
        source: r2SourceReader(config.FILES),
        send: queueSender(config),
        providers: providerEnv(config),
        graphBuilds: {
          minRows: config.VECTOR_GRAPH_BULK_MIN_ROWS,
          quietMs: config.VECTOR_GRAPH_BULK_QUIET_MS,
          session: graphBuild.session,
        },
      };
      try {
        for (const message of batch.messages) {
          const delivery = { id: message.id, attempts: message.attempts };
          let outcome: Outcome;
          try {
            outcome = await routeMessage(handlers, batch.queue, message.body, delivery, deps);
          } catch (error) {
            log("error", "message handler failed; retrying", {
              id: message.id,
              queue: batch.queue,
              reason: reasonOf(error),
            });
            outcome = retryAfter(backoffSeconds(message.attempts));
          }
          applyOutcome(message, outcome);
        }
      } finally {
        ctx.waitUntil(Promise.all([graphBuild.close(), close()]));
      }
    },
  } satisfies ExportedHandler<Env, QueueMessage>;
}

export default createIngestWorker() satisfies ExportedHandler<Env, QueueMessage>;
