import {
  type IngestMessage,
  ingestFailureReason,
  isPermanentIngestFailure,
  markDocumentFailed,
  noteIngestRetry,
  runIngestSlice,
} from "@quarry/core";
import { log } from "@quarry/worker-kit";
import type { MessageHandler } from "../handler.ts";
import { ack, backoffSeconds, retryAfter } from "../outcome.ts";

/**
 * One bounded slice of one document (`runIngestSlice`), which enqueues its successor. A file
 * that cannot be parsed fails its document at once; anything else is retried with backoff,
 * and what exhausts its retries reaches the dead-letter queue (dead-letter.ts), so nothing
 * stays `processing` forever.
 */
export const handleIngestSlice: MessageHandler<IngestMessage> = async (message, delivery, deps) => {
  const project = { db: deps.db, projectId: message.projectId, providers: deps.providers };
  try {
    const started = Date.now();
    const outcome = await runIngestSlice(project, message, {
      source: deps.source,
      enqueue: (next) => deps.send(next),
    });
    log("info", "slice", {
      document: message.documentId,
      position: message.cursor?.position ?? 0,
      outcome,
      ms: Date.now() - started,
    });
    return ack;
  } catch (error) {
    const reason = ingestFailureReason(error);
    if (isPermanentIngestFailure(error)) {
      await markDocumentFailed(deps.db, message, reason);
      return ack;
    }
    log("warn", "slice failed; retrying", {
      document: message.documentId,
      reason,
      attempts: delivery.attempts,
    });
    // The note is what the dead-letter handler tells the person, should the retries run out.
    await noteIngestRetry(deps.db, message, reason).catch(() => {});
    return retryAfter(backoffSeconds(delivery.attempts));
  }
};
