import type { Bench } from "../harness/bench.ts";
import { completionsBench } from "./completions.ts";
import { datasetsBench } from "./datasets.ts";
import { ingestBench } from "./ingest.ts";
import { loadBench } from "./load.ts";
import { rebuildBench } from "./rebuild.ts";
import { rowsBench } from "./rows.ts";
import { searchBench } from "./search.ts";
import { writersBench } from "./writers.ts";

/** Every `pnpm bench <name>`, by name. */
export const benches: Record<string, Bench> = {
  [rowsBench.name]: rowsBench,
  [searchBench.name]: searchBench,
  [ingestBench.name]: ingestBench,
  [completionsBench.name]: completionsBench,
  [loadBench.name]: loadBench,
  [writersBench.name]: writersBench,
  [datasetsBench.name]: datasetsBench,
  [rebuildBench.name]: rebuildBench,
};
