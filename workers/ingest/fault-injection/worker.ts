import type { QueueMessage } from "@quarry/core";
import { bindingsValidator } from "@quarry/worker-kit";
import { z } from "zod";
import { createIngestWorker } from "../src/worker.ts";
import { withSliceFaults } from "./faulty-slices.ts";

const faultConfigOf = bindingsValidator(
  z.object({
    /** probability that a delivery of a slice fails at one fault point */
    INGEST_FAULT_RATE: z.coerce.number().min(0).max(1),
  }),
);

/**
 * The ingest worker with fault injection: the entry the local stack runs instead of
 * src/worker.ts when INGEST_FAULT_RATE is set (packages/local-stack/src/wrangler-configs.ts).
 * Production deploys src/worker.ts, which has no fault branch at all.
 */
export default createIngestWorker((handlers, env) => ({
  ...handlers,
  ingestSlice: withSliceFaults(handlers.ingestSlice, faultConfigOf(env).INGEST_FAULT_RATE),
})) satisfies ExportedHandler<Env, QueueMessage>;
