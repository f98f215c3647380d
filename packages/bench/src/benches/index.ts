import type { Bench } from "../harness/bench.ts";
import { ingestBench } from "./ingest.ts";
import { rowsBench } from "./rows.ts";

/** Every `pnpm bench <name>`, by name. */
export const benches: Record<string, Bench> = {
  [rowsBench.name]: rowsBench,
  [ingestBench.name]: ingestBench,
};
