import { binding, databaseConfig, providerConfig } from "@quarry/worker-kit";
import { z } from "zod";

/**
 * The ingest worker's bindings (their types: worker-configuration.d.ts, from `wrangler
 * types`), validated once per isolate by the composition root (worker.ts).
 */
export const ingestEnvSchema = z.object({
  ...databaseConfig,
  ...providerConfig,
  /** where uploads and fetched sources are stored; slices read ranges of them */
  FILES: binding<R2Bucket>("FILES"),
  /** the slices' successors and the vector-index messages go back onto the queue */
  INGEST_QUEUE: binding<Queue>("INGEST_QUEUE"),
});

export type IngestConfig = z.output<typeof ingestEnvSchema>;
