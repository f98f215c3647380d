import { queueMessageSchema } from "@quarry/core";
import type { Delivery, HandlerDeps } from "./handler.ts";
import type { IngestHandlers } from "./handlers/index.ts";
import type { Outcome } from "./outcome.ts";

/** The dead-letter queue of "quarry-ingest" and "quarry-index" (wrangler.toml). */
export const DEAD_LETTER_QUEUE = "quarry-ingest-dlq";

/**
 * Validates a body against the message contract and picks its handler: everything on the
 * dead-letter queue goes to the dead-letter handler, the rest by kind, whichever queue it came
 * on (slices arrive on "quarry-ingest" and indexing on "quarry-index", but an `index-vectors`
 * message sent onto the ingest queue before the two were apart is still indexing).
 */
export function routeMessage(
  handlers: IngestHandlers,
  queue: string,
  body: unknown,
  delivery: Delivery,
  deps: HandlerDeps,
): Promise<Outcome> {
  const parsed = queueMessageSchema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`)
      .join("; ");
    return handlers.malformed({ problems }, delivery, deps);
  }
  const message = parsed.data;
  if (queue === DEAD_LETTER_QUEUE) return handlers.deadLetter(message, delivery, deps);
  if ("kind" in message) return handlers.indexVectors(message, delivery, deps);
  return handlers.ingestSlice(message, delivery, deps);
}
