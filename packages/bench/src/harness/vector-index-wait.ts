import { QUERY_SAMPLES } from "@quarry/core";
import type { Dataset, QuarryApi } from "./api.ts";
import { fmt } from "./report.ts";
import { round, startTimer, summarize } from "./stats.ts";

export type VectorIndexState = NonNullable<Dataset["vector_index"]>;

/** E2 semantic sampled while rows still wait for the graph (each ranked exactly meanwhile). */
export interface SearchWhileIndexing {
  /** seconds after the load ended */
  at_s: number;
  pending_rows: number;
  /** the median of `WHILE_INDEXING_SAMPLES` sequential searches */
  p50_ms: number;
}

const WHILE_INDEXING_SAMPLES = 5;

/**
 * Seconds from now until no row of the dataset waits for its HNSW graph and the graph is valid
 * (a bulk build empties the backlog when it starts), and the graph's state then. The ingest
 * worker measures the graph's `ef_search` after the batches it moves (when the graph has
 * doubled since the last measurement): this waits for that too (at most 5 minutes), so the
 * searches below run with the value the dataset keeps.
 */
export async function waitForVectorIndex(
  api: QuarryApi,
  datasetId: string,
  rows: number,
  progress: (line: string) => void,
  /** when given, E2 is sampled with it every 10 s while rows wait (`searchesMeanwhile`) */
  searchMeanwhile?: (i: number) => Promise<number>,
): Promise<{
  seconds: number;
  vectorIndex: VectorIndexState;
  searchesMeanwhile: SearchWhileIndexing[];
}> {
  const wall = startTimer();
  let drained: number | undefined;
  let lastReport = 0;
  const searchesMeanwhile: SearchWhileIndexing[] = [];
  for (;;) {
    const state = (await api.getDataset(datasetId)).body.vector_index;
    if (!state) throw new Error("GET dataset shows no vector_index");
    // Rows a bulk build moved in count as pending until its graph serves; `rebuilding` also
    // covers a build that moved none (the old head has no such field: its graph was invalid).
    if (state.pending_rows === 0 && state.graph === "valid" && state.rebuilding !== true) {
      drained ??= round(wall() / 1000, 1);
      const measuring =
        rows >= 1000 && (state.measured_rows === null || state.measured_rows * 2 <= rows);
      if (!measuring) {
        progress(
          `index: ef_search ${state.ef_search} (recall@10 ${state.recall_at_10} at ${state.measured_rows} rows)`,
        );
        return { seconds: drained, vectorIndex: state, searchesMeanwhile };
      }
      if (wall() - drained * 1000 > 300_000) {
        progress(`index: no ef_search measurement after 5 minutes; using ${state.ef_search}`);
        return { seconds: drained, vectorIndex: state, searchesMeanwhile };
      }
    }
    if (wall() - lastReport > 10_000) {
      let line =
        state.pending_rows > 0
          ? `index: ${fmt(state.pending_rows)} rows wait for the HNSW graph`
          : state.graph !== "valid" || state.rebuilding === true
            ? `index: the HNSW graph is ${state.graph === "valid" ? "being rebuilt" : state.graph}`
            : "index: waiting for the ef_search measurement";
      if (state.pending_rows > 0 && searchMeanwhile) {
        const at_s = round(wall() / 1000, 1);
        const samples: number[] = [];
        for (let k = 0; k < WHILE_INDEXING_SAMPLES; k++) {
          samples.push(await searchMeanwhile(30_000 + searchesMeanwhile.length * 10 + k));
        }
        const { p50 } = summarize(samples);
        searchesMeanwhile.push({ at_s, pending_rows: state.pending_rows, p50_ms: p50 });
        line = `index: ${fmt(state.pending_rows)} rows wait for the HNSW graph; E2 p50 ${p50} ms meanwhile`;
      }
      progress(line);
      lastReport = wall();
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** How `searchUntilCalibratedOnSearches` went: the state it ended on, and what it took. */
export interface CalibrationOnSearches {
  vector_index: VectorIndexState;
  /** searches sent meanwhile */
  searches: number;
  seconds: number;
}

/** Longest wait for a measurement on searches; past it, the run goes on with what it has. */
const CALIBRATION_ON_SEARCHES_TIMEOUT_MS = 300_000;

/**
 * Searches the dataset sequentially (`search(i)`, distinct queries) until its `ef_search` has
 * been measured on a full ring of its own searches (`measured_on: "searches"`, on
 * `QUERY_SAMPLES.slots` of them): the API keeps a few query vectors a second, the ingest worker
 * measures on them from 30 on, and again each time the dataset keeps twice as many. A dataset
 * in production serves most searches after that point; a benchmark that measured before it
 * would report the list size chosen for phrases of the stored texts, or for a sample too
 * small to choose well (query-samples.ts).
 */
export async function searchUntilCalibratedOnSearches(
  api: QuarryApi,
  datasetId: string,
  search: (i: number) => Promise<number>,
  progress: (line: string) => void,
): Promise<CalibrationOnSearches> {
  const wall = startTimer();
  let searches = 0;
  let lastCheck = 0;
  let lastReport = 0;
  for (;;) {
    if (wall() - lastCheck >= 1_000 || searches === 0) {
      lastCheck = wall();
      const state = (await api.getDataset(datasetId)).body.vector_index;
      if (!state) throw new Error("GET dataset shows no vector_index");
      const done =
        (state.measured_on === "searches" &&
          (state.measured_queries ?? 0) >= QUERY_SAMPLES.slots) ||
        state.measured_rows === null;
      const late = wall() > CALIBRATION_ON_SEARCHES_TIMEOUT_MS;
      if (done || late) {
        progress(
          `index: ef_search ${state.ef_search} (recall@10 ${state.recall_at_10}, measured on ${state.measured_queries ?? 0} ${state.measured_on ?? "nothing"}) after ${fmt(searches)} searches${late && !done ? ": no measurement on a full ring of searches in time" : ""}`,
        );
        return { vector_index: state, searches, seconds: round(wall() / 1000, 1) };
      }
      if (wall() - lastReport > 10_000) {
        progress(
          `index: ${fmt(searches)} searches so far; ef_search measured on ${state.measured_queries ?? 0} ${state.measured_on ?? "nothing"}`,
        );
        lastReport = wall();
      }
    }
    await search(40_000 + searches);
    searches++;
  }
}
