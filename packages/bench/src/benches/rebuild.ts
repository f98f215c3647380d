import { LocalHashEmbedder } from "@quarry/providers";
import pg from "pg";
import type { QuarryApi, RowInput } from "../harness/api.ts";
import { type Bench, scaled } from "../harness/bench.ts";
import { startBenchTenant } from "../harness/bench-tenant.ts";
import { measureSequential, runConcurrent } from "../harness/concurrency.ts";
import { type HttpClient, HttpError } from "../harness/http.ts";
import { waitForQuietDatabase } from "../harness/quiet-database.ts";
import { fmt } from "../harness/report.ts";
import { perSecond, round, type Summary, startTimer, summarize } from "../harness/stats.ts";
import { positiveIntegerEnv } from "../harness/target.ts";
import { createTextCorpus } from "../harness/text-corpus.ts";
import {
  searchUntilCalibratedOnSearches,
  waitForVectorIndex,
} from "../harness/vector-index-wait.ts";
import {
  type ExactCheck,
  type ExactSummary,
  evenlySpaced,
  exactConfidences,
  matchedConfidences,
  summarizeExact,
} from "./rebuild/exact.ts";
import { PhaseLog, REBUILD_PHASES, type RebuildPhase } from "./rebuild/phases.ts";

/**
 * `pnpm bench rebuild`: E2 semantic while a dataset's HNSW graph is rebuilt in bulk
 * (docs/indexing.md, deferred vector indexing, steps 6–7). A dataset of BASE_ROWS rows gets its
 * graph built and its `ef_search` settled; E2 is measured (`before`); EXTRA_ROWS more rows make
 * a bulk rebuild due (a backlog of at least VECTOR_GRAPH_BULK_MIN_ROWS and half the graph), and
 * from the end of those writes one client searches back to back, tagging each query with the
 * phase GET /api/datasets/{id} shows (read every READ_EVERY_MS, `rebuild/phases.ts`), until the
 * graph has served AFTER_QUERIES queries after the build or REBUILD_MINUTES have passed; then E2
 * is measured as before (`after_settled`). With DATABASE_URL, replies of each phase are checked
 * against an exact ranking (`rebuild/exact.ts`).
 *
 * For comparing the heads: a build used to drop the serving graph first, so every search ranked
 * the whole partition exactly until the new one was valid; it now builds beside it.
 */
const BASE_ROWS = 60_000;
const EXTRA_ROWS = 40_000;
const BATCH = 100;
const LOAD_CLIENTS = 4;
const TOP_K = 10;
const SETTLED_QUERIES = 100;
const WARMUP = 10;
const AFTER_QUERIES = 50;
const READ_EVERY_MS = 2_000;
const REPORT_EVERY_MS = 10_000;
const DEADLINE_MINUTES = 15;
/**
 * Replies checked per phase at most, spread evenly over it: each exact ranking scans the whole
 * dataset (~0.5 s at 100k rows), and a phase of minutes has thousands of replies.
 */
const EXACT_PER_PHASE = 40;
/** the ingest worker's default VECTOR_GRAPH_BULK_MIN_ROWS */
const BULK_MIN_ROWS = 10_000;
/** a run of failed searches this long means the stack is down, not a phase to measure */
const MAX_FAILURES_IN_A_ROW = 20;
const MODEL = "local/hash";
const DIMENSIONS = 384;
/** query numbers: `before` and `after_settled` search the same, the rebuild's others */
const FIRST_QUERY = { settled: 1_000, during: 100_000 };

const corpus = createTextCorpus({ seed: 31, chars: 500 });
const queryText = (i: number) => corpus.query(i).text;

interface SearchReply {
  results: { confidence: number }[];
}

/** A reply kept for the exact check: the query and the confidences E2 returned. */
interface Sampled {
  phase: RebuildPhase | "before" | "after_settled";
  query: number;
  confidences: number[];
}

export const rebuildBench: Bench = {
  name: "rebuild",
  summary: "E2 semantic p50/p95 and exactness before, during and after a bulk graph rebuild",
  async run({ target, http, scale, progress }) {
    // Plain errors, not usage errors: those exit at once, leaving a native scratch database.
    if (target.engine.name === "pglite") {
      throw new Error(
        "rebuild: PGlite never builds a graph in bulk; use BENCH_ENGINE=native or DATABASE_URL",
      );
    }
    // A started stack hands VECTOR_GRAPH_BULK_MIN_ROWS to its ingest worker; an attached one is
    // assumed to run the default.
    const bulkMinRows = Number(process.env.VECTOR_GRAPH_BULK_MIN_ROWS || BULK_MIN_ROWS);
    if (!Number.isInteger(bulkMinRows) || bulkMinRows < 1) {
      throw new Error("rebuild: needs bulk builds (VECTOR_GRAPH_BULK_MIN_ROWS >= 1)");
    }
    // At a small scale the extra rows must still make a build due: the backlog they leave
    // (less what the indexer moves row by row before the build is due) at least the threshold.
    // And the rows must not double the graph, or the worker measures ef_search again after it.
    const extraMin = Math.ceil((1.5 * bulkMinRows) / BATCH) * BATCH;
    const extra = scaled(EXTRA_ROWS, scale, { step: BATCH, min: extraMin });
    const base = scaled(BASE_ROWS, scale, { step: BATCH, min: 2 * extraMin });
    const deadlineMinutes = positiveIntegerEnv("REBUILD_MINUTES", DEADLINE_MINUTES);
    const params = {
      base_rows: base,
      extra_rows: extra,
      extra_rows_min: `${extraMin}: 1.5 x VECTOR_GRAPH_BULK_MIN_ROWS, so that a rebuild is due at any scale`,
      base_rows_min: `${2 * extraMin}: twice extra_rows_min, so that ef_search is not measured again`,
      bulk_min_rows: bulkMinRows,
      rows_per_document: BATCH,
      text_chars: 500,
      embedding_model: MODEL,
      dimensions: DIMENSIONS,
      load_clients: LOAD_CLIENTS,
      top_k: TOP_K,
      alpha: 1,
      settled_queries: SETTLED_QUERIES,
      warmup: WARMUP,
      search_clients: 1,
      index_read_every_ms: READ_EVERY_MS,
      after_queries: AFTER_QUERIES,
      deadline_minutes: deadlineMinutes,
      exact_check:
        target.databaseUrl !== undefined
          ? `at most ${EXACT_PER_PHASE} replies a phase, spread evenly over it`
          : null,
      queries: "corpus.query(i): three topic words",
      stack: target.mode,
    };
    const { api, apiKey: token } = await startBenchTenant(
      { http, target, progress },
      "rebuild",
      params,
    );
    const dataset = await api.createDataset({ name: "rebuild", embedding_model: MODEL });
    const search = (i: number) => searchOnce(http, dataset.id, token, i);
    const kept: Sampled[] = [];
    // E2 on a settled database, one client: before the extra rows, and once the rebuild is
    // over and the autovacuum it brings is done, on the same queries, so the two compare.
    const measureSettled = async (label: "before" | "after_settled") => {
      const settled = target.databaseUrl
        ? await waitForQuietDatabase(target.databaseUrl, progress)
        : null;
      const latency = await measureSequential(
        async (i) => {
          const reply = await search(i);
          kept.push(sampled(label, i, reply));
          return reply.ms;
        },
        SETTLED_QUERIES,
        WARMUP,
        FIRST_QUERY.settled,
      );
      progress(`${label}: E2 semantic p50 ${latency.p50} ms, p95 ${latency.p95} ms`);
      return { latency_ms: latency, settled };
    };
    const exactOf = async (db: pg.Client | undefined, phase: Sampled["phase"]) => {
      if (!db) return null;
      const ofPhase = kept.filter((s) => s.phase === phase);
      return summarizeExact(await checkExact(db, dataset.id, ofPhase, progress));
    };

    const baseLoad = await loadRows(api, dataset.id, 0, base, progress);
    const indexed = await waitForVectorIndex(api, dataset.id, base, progress);
    // The list size a searched dataset settles on, measured on its own searches: measured
    // during the rebuild instead, it would change the latencies under comparison.
    const calibrated = await searchUntilCalibratedOnSearches(
      api,
      dataset.id,
      async (i) => (await search(i)).ms,
      progress,
    );
    const before = await measureSettled("before");
    const db = target.databaseUrl
      ? new pg.Client({ connectionString: target.databaseUrl })
      : undefined;
    await db?.connect();
    try {
      // Checked now: the extra rows change the exact ranking.
      const beforeExact = await exactOf(db, "before");

      const extraLoad = await loadRows(api, dataset.id, base / BATCH, extra, progress);
      const run = await searchThroughRebuild(api, dataset.id, search, deadlineMinutes, progress);
      kept.push(...run.kept);
      // `after` is the moment the new graph serves (its pages cold, autovacuum busy with the
      // extra rows): twice `before`'s p50 in a smoke run. This is what the dataset settles into.
      const afterSettled = run.timedOut ? null : await measureSettled("after_settled");
      // Checked after the run, when nothing writes: the rows are the same as during it, so the
      // exact ranking is too, and its scans of the whole dataset stay out of the measured time.
      const exact = new Map<Sampled["phase"], ExactSummary | null>();
      for (const phase of [...REBUILD_PHASES, "after_settled"] as const) {
        exact.set(phase, await exactOf(db, phase));
      }

      const phases = run.log.report(run.endedMs);
      const ratios = (a: Summary | null | undefined) => ({
        p50: a ? round(a.p50 / before.latency_ms.p50, 2) : null,
        p95: a ? round(a.p95 / before.latency_ms.p95, 2) : null,
      });
      const results = {
        // a build was seen under way: false when the backlog drained row by row
        rebuild_seen: phases.rebuilding !== null,
        timed_out: run.timedOut,
        // the new head reports `rebuilding` (builds beside the serving graph); the old one not
        rebuilding_reported: run.log.rebuildingReported,
        before: { ...before, exact: beforeExact },
        phases: Object.fromEntries(
          REBUILD_PHASES.map((phase) => {
            const report = phases[phase];
            return [phase, report && { ...report, exact: exact.get(phase) ?? null }];
          }),
        ),
        after_settled: afterSettled && {
          ...afterSettled,
          exact: exact.get("after_settled") ?? null,
        },
        rebuilding_vs_before: ratios(phases.rebuilding?.latency_ms),
        after_settled_vs_before: ratios(afterSettled?.latency_ms),
        phase_changes: run.log.changes,
        searched_s: round(run.endedMs / 1000, 1),
        load: {
          base: baseLoad,
          extra: extraLoad,
          base_index_s: indexed.seconds,
          calibration_on_searches: { searches: calibrated.searches, seconds: calibrated.seconds },
        },
        vector_index_before: calibrated.vector_index,
      };
      progress(
        `done: before ${before.latency_ms.p50} ms p50, ${REBUILD_PHASES.map((p) => `${p} ${phases[p]?.latency_ms?.p50 ?? "-"}`).join(", ")}, after settled ${afterSettled?.latency_ms.p50 ?? "-"}`,
      );
      return { params, results };
    } finally {
      await db?.end();
    }
  },
};

async function searchOnce(http: HttpClient, datasetId: string, token: string, i: number) {
  return http.post<SearchReply>(
    `/api/datasets/${datasetId}/search`,
    { query: queryText(i), top_k: TOP_K, alpha: 1 },
    { token },
  );
}

function sampled(phase: Sampled["phase"], query: number, reply: { body: SearchReply }): Sampled {
  return { phase, query, confidences: reply.body.results.map((r) => r.confidence) };
}

/**
 * One client searching back to back from the end of the writes, the index read every
 * READ_EVERY_MS, until the graph has served AFTER_QUERIES queries after a build, or the
 * deadline. A failed search is counted in its phase, not fatal: whether a rebuild makes
 * searches fail is part of what is measured.
 */
async function searchThroughRebuild(
  api: QuarryApi,
  datasetId: string,
  search: (i: number) => Promise<{ ms: number; body: SearchReply }>,
  deadlineMinutes: number,
  progress: (line: string) => void,
) {
  const wall = startTimer();
  const log = new PhaseLog(0);
  const kept: Sampled[] = [];
  let lastRead = Number.NEGATIVE_INFINITY;
  let lastReport = 0;
  let window: number[] = [];
  let failuresInARow = 0;
  for (let q = 0; ; q++) {
    if (wall() - lastRead >= READ_EVERY_MS) {
      lastRead = wall();
      const state = (await api.getDataset(datasetId)).body.vector_index;
      if (!state) throw new Error("GET dataset shows no vector_index");
      const was = log.phase;
      const phase = log.read(state, wall());
      const shown = `${fmt(state.pending_rows)} rows pending, graph ${state.graph}${state.rebuilding === true ? ", rebuilding" : ""}`;
      if (phase !== was) progress(`phase: ${phase} (${shown})`);
      if (wall() - lastReport >= REPORT_EVERY_MS && window.length > 0) {
        progress(
          `${phase}: ${fmt(log.answered(phase))} queries, p50 ${summarize(window).p50} ms lately; ${shown}`,
        );
        lastReport = wall();
        window = [];
      }
    }
    const phase = log.phase as RebuildPhase;
    const timedOut = wall() > deadlineMinutes * 60_000;
    if ((phase === "after" && log.answered("after") >= AFTER_QUERIES) || timedOut) {
      if (timedOut) progress(`deadline: ${deadlineMinutes} minutes passed in phase ${phase}`);
      if (log.report(wall()).rebuilding === null)
        progress("no rebuild seen: the backlog drained row by row (too few extra rows?)");
      return { log, kept, timedOut, endedMs: wall() };
    }
    try {
      const reply = await search(FIRST_QUERY.during + q);
      log.record(reply.ms, reply.body.results.length === TOP_K);
      window.push(reply.ms);
      kept.push(sampled(phase, FIRST_QUERY.during + q, reply));
      failuresInARow = 0;
    } catch (error) {
      if (!(error instanceof HttpError) || ++failuresInARow >= MAX_FAILURES_IN_A_ROW) throw error;
      log.record(undefined);
      progress(`${phase}: E2 answered ${error.status}`);
    }
  }
}

/** The sampled replies (EXACT_PER_PHASE at most, spread evenly) against the exact ranking. */
async function checkExact(
  db: pg.Client,
  datasetId: string,
  replies: readonly Sampled[],
  progress: (line: string) => void,
): Promise<ExactCheck[]> {
  const embedder = new LocalHashEmbedder(DIMENSIONS);
  const checks: ExactCheck[] = [];
  for (const reply of evenlySpaced(replies, EXACT_PER_PHASE)) {
    const exact = await exactConfidences(
      db,
      datasetId,
      embedder.embedOne(queryText(reply.query)),
      TOP_K,
    );
    checks.push({ matched: matchedConfidences(reply.confidences, exact), of: exact.length });
  }
  const summary = summarizeExact(checks);
  if (summary && replies[0]) {
    progress(
      `exact: ${replies[0].phase}: ${summary.exact_share} of ${summary.checked} top-${TOP_K} exact, recall ${summary.recall}`,
    );
  }
  return checks;
}

function rowInputs(first: number, count: number): RowInput[] {
  return Array.from({ length: count }, (_, k) => ({ data: { text: corpus.text(first + k).text } }));
}

/** E11 in documents of BATCH rows from LOAD_CLIENTS clients, from document `firstDocument` on. */
async function loadRows(
  api: QuarryApi,
  datasetId: string,
  firstDocument: number,
  rows: number,
  progress: (line: string) => void,
) {
  const batches = rows / BATCH;
  progress(
    `load: ${fmt(rows)} rows in ${fmt(batches)} documents over E11, ${LOAD_CLIENTS} clients`,
  );
  const wall = startTimer();
  const result = await runConcurrent({
    clients: LOAD_CLIENTS,
    count: batches,
    task: async (b) => {
      const document = firstDocument + b;
      const reply = await api.upsertRows(datasetId, {
        document_id: `doc-${String(document).padStart(5, "0")}`,
        rows: rowInputs(document * BATCH, BATCH),
      });
      if (reply.body.rows.length !== BATCH)
        throw new Error(`E11 stored ${reply.body.rows.length} rows`);
    },
  });
  const load = {
    rows_per_s: perSecond(result.completed * BATCH, result.elapsedMs),
    batch_ms: summarize(result.samples),
    wall_s: round(wall() / 1000, 1),
  };
  progress(`load: ${fmt(rows)} rows in ${load.wall_s} s, ${fmt(load.rows_per_s)} rows/s`);
  return load;
}
