import { BULK_BUILD_QUIET_MS } from "@quarry/core";
import { binding, databaseConfig, providerConfig } from "@quarry/worker-kit";
import { z } from "zod";

/** VECTOR_GRAPH_BULK_MIN_ROWS's default: below it, growing the graph row by row takes under a minute. */
export const VECTOR_GRAPH_BULK_MIN_ROWS = 10_000;

/**
 * The ingest worker's bindings (their types: worker-configuration.d.ts, from `wrangler
 * types`), validated once per isolate by the composition root (worker.ts).
 */
export const ingestEnvSchema = z.object({
  ...databaseConfig,
  ...providerConfig,
  /** where uploads and fetched sources are stored; slices read ranges of them */
  FILES: binding<R2Bucket>("FILES"),
  /** the slices' successors go back onto the ingest queue */
  INGEST_QUEUE: binding<Queue>("INGEST_QUEUE"),
  /** the vector-index messages (a finished document's, an indexer's next turn) onto theirs */
  INDEX_QUEUE: binding<Queue>("INDEX_QUEUE"),
  /**
   * A vector backlog of at least this many rows (and half the graph's size) gets its
   * dataset's graph built in one pass instead of row by row; 0 never (the embedded database,
   * whose one session a build would hold for minutes).
   */
  VECTOR_GRAPH_BULK_MIN_ROWS: z.coerce.number().int().min(0).default(VECTOR_GRAPH_BULK_MIN_ROWS),
  /**
   * A bulk build that is due waits until the dataset has had no new rows for this long
   * (core `BULK_BUILD_QUIET_MS`); 0 builds at once.
   */
  VECTOR_GRAPH_BULK_QUIET_MS: z.coerce.number().int().min(0).default(BULK_BUILD_QUIET_MS),
});

export type IngestConfig = z.output<typeof ingestEnvSchema>;
