import { abandonedReason, markDocumentFailed, type QueueMessage } from "@quarry/core";
import { log } from "@quarry/worker-kit";
import type { MessageHandler } from "../handler.ts";
import { ack } from "../outcome.ts";

/**
 * A message that exhausted its retries (wrangler.toml: `max_retries`, `dead_letter_queue`).
 * A slice's document ends `failed` with the last error it recorded, so nothing stays
 * `processing` forever. An `index-vectors` message fails nothing: its backlog stays
 * searchable (exactly), and the dataset's next write sends another one.
 */
export const handleDeadLetter: MessageHandler<QueueMessage> = async (message, delivery, deps) => {
  if ("kind" in message) return ack;
  const reason = await abandonedReason(deps.db, message);
  await markDocumentFailed(deps.db, message, reason);
  // A document that finished meanwhile keeps its state (markDocumentFailed changes only
  // unfinished ones); the line is logged either way.
  log("warn", "dead-lettered slice", {
    document: message.documentId,
    attempts: delivery.attempts,
    reason,
  });
  return ack;
};
