import { isIngestMessage, markDocumentFailed } from "@quarry/core";
import { openDatabase } from "@quarry/worker-kit";
import type { Bindings } from "./env.ts";

const DEAD_LETTER_QUEUE = "quarry-ingest-dlq";

/**
 * The Queue consumer's entry. Messages on the dead-letter queue have exhausted their
 * retries: their document is marked `failed` so nothing stays `processing` forever.
 * Parsing, chunking and embedding slices arrive with the ingestion issue; until then a
 * document sent here is failed with that reason rather than left queued.
 */
export default {
  async queue(batch, env, ctx) {
    const { db, close } = openDatabase(env.DATABASE_URL, env.NEON_LOCAL_PROXY);
    try {
      for (const message of batch.messages) {
        if (!isIngestMessage(message.body)) {
          console.error(
            JSON.stringify({ level: "error", msg: "malformed ingest message", id: message.id }),
          );
          message.ack();
          continue;
        }
        const reason =
          batch.queue === DEAD_LETTER_QUEUE
            ? "ingestion failed repeatedly and was abandoned; upload the file again"
            : "file ingestion is not enabled on this deployment yet";
        await markDocumentFailed(db, message.body, reason);
        message.ack();
      }
    } finally {
      ctx.waitUntil(close());
    }
  },
} satisfies ExportedHandler<Bindings>;
