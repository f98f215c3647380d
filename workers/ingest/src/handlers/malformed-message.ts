import { log } from "@quarry/worker-kit";
import type { MessageHandler } from "../handler.ts";
import { ack } from "../outcome.ts";

/** A body that fails the message contract, and why (zod's issues, one line). */
export interface MalformedMessage {
  problems: string;
}

/**
 * No redelivery can make a malformed body valid: it is logged (never its content, which may
 * hold a tenant's ids) and acknowledged, so it does not circle to the dead-letter queue.
 */
export const handleMalformedMessage: MessageHandler<MalformedMessage> = async (
  message,
  delivery,
) => {
  log("error", "malformed ingest message", { id: delivery.id, problems: message.problems });
  return ack;
};
