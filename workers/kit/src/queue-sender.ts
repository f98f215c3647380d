import { type QueueMessage, queueMessageSchema } from "@quarry/core";

/** Sends one message to the ingest worker, optionally delayed. */
export type QueueSender = (
  message: QueueMessage,
  options?: { delaySeconds?: number },
) => Promise<void>;

/** The two queues the ingest worker consumes (wrangler.toml). */
export interface WorkQueues {
  /** document slices: each a bounded part of a file, under a second */
  INGEST_QUEUE: Queue;
  /** `index-vectors`: moves and graph builds, which can run for minutes */
  INDEX_QUEUE: Queue;
}

/**
 * The one way onto the work queues, for both workers. Every message is checked against the
 * contract before it leaves: a producer's mistake fails the producer's own request or slice
 * (retried, logged) instead of reaching the consumer as a message it can only drop.
 *
 * Slices and vector indexing go on queues of their own so that neither waits for the other: a
 * queue hands its consumer one batch at a time (Miniflare's, locally; a deployed consumer
 * scales out only as its backlog grows), and one `index-vectors` message may build a graph for
 * minutes, which held every upload queued behind it.
 */
export function queueSender(queues: WorkQueues): QueueSender {
  return async (message, options = {}) => {
    const body = queueMessageSchema.parse(message);
    const queue = "kind" in body ? queues.INDEX_QUEUE : queues.INGEST_QUEUE;
    await queue.send(body, {
      contentType: "json",
      ...(options.delaySeconds ? { delaySeconds: options.delaySeconds } : {}),
    });
  };
}
