import { type QueueMessage, queueMessageSchema } from "@quarry/core";

/** Sends one message to the ingest worker, optionally delayed. */
export type QueueSender = (
  message: QueueMessage,
  options?: { delaySeconds?: number },
) => Promise<void>;

/**
 * The one way onto the ingest queue, for both workers. Every message is checked against the
 * contract before it leaves: a producer's mistake fails the producer's own request or slice
 * (retried, logged) instead of reaching the consumer as a message it can only drop.
 */
export function queueSender(queue: Queue): QueueSender {
  return async (message, options = {}) => {
    const body = queueMessageSchema.parse(message);
    await queue.send(body, {
      contentType: "json",
      ...(options.delaySeconds ? { delaySeconds: options.delaySeconds } : {}),
    });
  };
}
