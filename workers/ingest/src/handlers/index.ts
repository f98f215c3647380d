import type { IngestMessage, QueueMessage, VectorIndexMessage } from "@quarry/core";
import type { MessageHandler } from "../handler.ts";
import { handleDeadLetter } from "./dead-letter.ts";
import { handleIndexVectors } from "./index-vectors.ts";
import { handleIngestSlice } from "./ingest-slice.ts";
import { handleMalformedMessage, type MalformedMessage } from "./malformed-message.ts";

/** One handler per kind of message; a wrapper (fault injection) may replace any of them. */
export interface IngestHandlers {
  ingestSlice: MessageHandler<IngestMessage>;
  indexVectors: MessageHandler<VectorIndexMessage>;
  deadLetter: MessageHandler<QueueMessage>;
  malformed: MessageHandler<MalformedMessage>;
}

export const ingestHandlers: IngestHandlers = {
  ingestSlice: handleIngestSlice,
  indexVectors: handleIndexVectors,
  deadLetter: handleDeadLetter,
  malformed: handleMalformedMessage,
};
