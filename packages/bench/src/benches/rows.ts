import pg from "pg";
import type { QuarryApi } from "../harness/api.ts";
import { type Bench, scaled } from "../harness/bench.ts";
import { startBenchTenant } from "../harness/bench-tenant.ts";
import { runConcurrent } from "../harness/concurrency.ts";
import { explainAnalyze, type PlanSummary } from "../harness/explain.ts";
import { fmt } from "../harness/report.ts";
import { type TimedReply, timeSplit } from "../harness/server-timing.ts";
import { perSecond, round, type Summary, startTimer, summarize } from "../harness/stats.ts";
import { measureDocumentDeletion } from "./rows/document-deletion.ts";
import { measureDocumentReplacement } from "./rows/document-replacement.ts";
import { listCases, measureListCase, rowIdAt } from "./rows/list-latency.ts";
import { createRawInserter, type RawInserter } from "./rows/raw-insert.ts";
import { documentId, rowInputs } from "./rows/workload.ts";

/**
 * `pnpm bench rows`: E11 upsert throughput (batches of 100 rows of ~500 characters,
 * `local/hash`), sequential and with 4 concurrent clients, against the same rows inserted as
 * one raw SQL statement per batch; then E6 list latency at 100k rows, with and without a
 * 1%-selective filter; then replacing 100-row documents and deleting 5,000-row ones at that size.
 * Targets: upsert ≥ 70% of the raw insert rate; E6 p50 < 15 ms for the filtered first page at
 * 100k rows.
 *
 * The HTTP and raw batches alternate (one of each, in turn), so both sides write into a table
 * of the same size with the same indexes, warmth and background noise; each rate is rows over
 * the summed time of its own batches. The 1% filter is `{"bucket": b}` (see workload.ts).
 */
const FULL_ROWS = 100_000;
const BATCH = 100;
const CLIENTS = 4;
const FULL_CONCURRENT_ROWS = 20_000;
const FULL_DEEP_OFFSET = 50_000;
const PAGE_SIZE = 100;
const LIST_REQUESTS = 200;
const LIST_WARMUP = 20;
const WARMUP_BATCHES = 3;
const MODEL = "local/hash";
/** Large documents written and deleted at the end (`rows/document-deletion.ts`). */
const DELETED_DOCUMENTS = 3;
const DELETED_DOCUMENT_ROWS = 5000;
/** Documents of the load replaced by E11 before that (`rows/document-replacement.ts`). */
const REPLACED_DOCUMENTS = 30;
const TARGET_UPSERT_VS_RAW = 0.7;
const TARGET_FILTERED_P50_MS = 15;

const ROW_COLUMNS = `id, dataset_id, document_id, data, metadata, image_paths, (embedding IS NOT NULL) AS embedded`;

/**
 * E6's statements as `packages/core/src/rows/` builds them: unfiltered, the page's ids off the
 * (dataset_id, id) index, then their rows; a single equality such as `{"bucket": b}`, the page
 * read off the term's range in `row_filter_terms` (equality-page.ts); any other filter, the
 * match set from the GIN index of `row_filter_metadata`, here for `{"bucket": {"$in": [b]}}`
 * (filtered-page.ts).
 */
const LIST_SQL = {
  unfiltered: `SELECT ${ROW_COLUMNS} FROM rows
WHERE dataset_id = $1 AND id IN (
  SELECT id FROM rows WHERE dataset_id = $1 ORDER BY id OFFSET $3 LIMIT $2)
ORDER BY id`,
  equality: `SELECT ${ROW_COLUMNS}, (dataset_id = $1 AND metadata @> jsonb_build_object($4::text, $5::jsonb)) AS matches
FROM rows WHERE id IN (
  SELECT row_id FROM row_filter_terms WHERE term_key = quarry_filter_term_key($1, $4, $5::jsonb)
  ORDER BY row_id OFFSET $3 LIMIT $2)
ORDER BY id`,
  general: `WITH matches AS (
  SELECT row_id AS match_id FROM row_filter_metadata
  WHERE dataset_id = $1 AND metadata @> jsonb_build_object($4::text, $5::jsonb) LIMIT 10001)
SELECT ${ROW_COLUMNS} FROM rows
WHERE dataset_id = $1 AND id IN (SELECT match_id FROM matches ORDER BY match_id OFFSET $3 LIMIT $2)
  AND (SELECT count(*) FROM matches) <= 10000
ORDER BY id`,
};

export const rowsBench: Bench = {
  name: "rows",
  summary:
    "E11 upsert rows/s vs one raw INSERT per batch; E6 list p50/p95 at 100k rows; replacing 100-row and deleting 5,000-row documents",
  async run({ target, http, scale, progress }) {
    const total = scaled(FULL_ROWS, scale, { step: BATCH });
    const batches = total / BATCH;
    const concurrentRows = scaled(FULL_CONCURRENT_ROWS, scale, { step: BATCH * CLIENTS });
    const deepOffset = Math.min(scaled(FULL_DEEP_OFFSET, scale, { step: BATCH }), total - BATCH);
    const params = {
      rows: total,
      batch_size: BATCH,
      text_chars: 500,
      embedding_model: MODEL,
      dataset_kind: "hybrid",
      concurrent_clients: CLIENTS,
      concurrent_rows: concurrentRows,
      page_size: PAGE_SIZE,
      list_requests: LIST_REQUESTS,
      list_warmup: LIST_WARMUP,
      filter: '{"bucket": b}, b rotating over 0..99 (1% of rows each)',
      deep_offset: deepOffset,
      replaced_documents: REPLACED_DOCUMENTS,
      deleted_documents: DELETED_DOCUMENTS,
      deleted_document_rows: scaled(DELETED_DOCUMENT_ROWS, scale, { step: 1000 }),
      filtered_offset: Math.floor(total / 100 / 2),
      raw_sql: target.databaseUrl !== undefined,
      stack: target.mode,
    };
    const tenant = await startBenchTenant({ http, target, progress }, "rows", params);
    const { api } = tenant;
    const dataset = async (name: string) => {
      const created = await api.createDataset({ name, kind: "hybrid", embedding_model: MODEL });
      if (created.embedding_model !== MODEL) {
        throw new Error(`dataset ${name} has embedding_model ${created.embedding_model}`);
      }
      return created.id;
    };
    const mainId = await dataset("bench");
    const concurrentId = await dataset("bench-concurrent");
    const rawId = await dataset("bench-raw");
    const warmupId = await dataset("bench-warmup");

    const db = target.databaseUrl
      ? new pg.Client({ connectionString: target.databaseUrl })
      : undefined;
    await db?.connect();
    try {
      const raw = db && createRawInserter(db, { projectId: tenant.projectId, datasetId: rawId });
      const rawWarmup =
        db && createRawInserter(db, { projectId: tenant.projectId, datasetId: warmupId });

      progress(`warm-up: ${WARMUP_BATCHES} batches each way`);
      for (let b = 0; b < WARMUP_BATCHES; b++) {
        await upsertBatch(api, warmupId, documentId("warmup", b), b * BATCH);
        await rawWarmup?.insertBatch(documentId("raw-warmup", b), b * BATCH, BATCH);
      }

      const load = await loadSequential(api, raw, mainId, batches, progress);
      const concurrent = await loadConcurrent(api, concurrentId, concurrentRows, progress);
      // A few more raw batches, explained and rolled back: the insert's own time against each
      // trigger that keeps the search structures (keyword statistics, filter tables, backlog).
      const writePlan = raw && (await explainRawBatches(raw, total));
      if (writePlan) {
        const triggers = Object.entries(writePlan.triggers_ms ?? {})
          .map(([name, ms]) => `${name} ${ms} ms`)
          .join(", ");
        progress(`raw batch explained: ${writePlan.execution_ms} ms, of which ${triggers}`);
      }

      progress("E6: request floor (GET /health, GET /api/datasets/{id})");
      const floor = {
        health: await sample(
          LIST_REQUESTS,
          LIST_WARMUP,
          async () => (await http.get("/health")).ms,
        ),
        get_dataset: await sample(
          LIST_REQUESTS,
          LIST_WARMUP,
          async () => (await api.getDataset(mainId)).ms,
        ),
      };
      const e6: Record<string, Summary | { error: string }> = {};
      const deepAfter = await rowIdAt(api, mainId, deepOffset - 1);
      for (const listCase of listCases(total, PAGE_SIZE, deepOffset, deepAfter)) {
        const run = () =>
          measureListCase(api, mainId, listCase, { requests: LIST_REQUESTS, warmup: LIST_WARMUP });
        // The JSON-body form is an extra: record its failure instead of aborting the run.
        e6[listCase.name] =
          listCase.form === "body"
            ? await run().catch((error: unknown) => ({ error: String(error) }))
            : await run();
        const summary = e6[listCase.name];
        progress(
          summary && "p50" in summary
            ? `E6 ${listCase.name}: p50 ${summary.p50} ms, p95 ${summary.p95} ms, p99 ${summary.p99} ms`
            : `E6 ${listCase.name}: ${JSON.stringify(summary)}`,
        );
      }

      const plans = db
        ? await explainListing(db, mainId, deepOffset, params.filtered_offset)
        : undefined;
      if (plans) {
        for (const [name, plan] of Object.entries(plans.plans)) {
          progress(`plan ${name}: ${plan.plan}; execution ${plan.execution_ms} ms`);
        }
      }

      // PGlite runs no autovacuum, so the local planner never has statistics; Neon's does.
      // On our own throwaway stack, measure the E6 cases again after ANALYZE.
      let afterAnalyze: Record<string, unknown> | undefined;
      if (db && target.mode === "started") {
        await db.query("ANALYZE rows");
        const latency: Record<string, Summary> = {};
        for (const listCase of listCases(total, PAGE_SIZE, deepOffset, deepAfter)) {
          if (listCase.form !== "query") continue;
          latency[listCase.name] = await measureListCase(api, mainId, listCase, {
            requests: LIST_REQUESTS,
            warmup: LIST_WARMUP,
          });
          const summary = latency[listCase.name] as Summary;
          progress(
            `after ANALYZE: E6 ${listCase.name}: p50 ${summary.p50} ms, p95 ${summary.p95} ms`,
          );
        }
        const explained = await explainListing(db, mainId, deepOffset, params.filtered_offset);
        for (const [name, plan] of Object.entries(explained.plans)) {
          progress(`after ANALYZE: plan ${name}: ${plan.plan}; execution ${plan.execution_ms} ms`);
        }
        afterAnalyze = { e6_ms: latency, plans: explained.plans };
      }

      const replacement = await measureDocumentReplacement(
        api,
        mainId,
        {
          documents: params.replaced_documents,
          loadedDocuments: batches,
          rowsPerDocument: BATCH,
          firstRow:
            total + concurrentRows + params.deleted_documents * params.deleted_document_rows,
        },
        progress,
      );
      progress(
        `document deletion: ${params.deleted_documents} × ${params.deleted_document_rows} rows`,
      );
      const deletion = await measureDocumentDeletion(
        api,
        mainId,
        {
          documents: params.deleted_documents,
          rowsPerDocument: params.deleted_document_rows,
          firstRow: total + concurrentRows,
        },
        progress,
      );

      const filteredP50 = (e6.filtered_first_page as Summary).p50;
      const upsertVsRaw = load.rawRowsPerS
        ? round(load.upsertRowsPerS / load.rawRowsPerS, 3)
        : null;
      const results = {
        upsert_rows_per_s: load.upsertRowsPerS,
        upsert_concurrent_rows_per_s: concurrent.rowsPerS,
        raw_insert_rows_per_s: load.rawRowsPerS,
        upsert_vs_raw: upsertVsRaw,
        upsert_concurrent_vs_raw: load.rawRowsPerS
          ? round(concurrent.rowsPerS / load.rawRowsPerS, 3)
          : null,
        e6_filtered_p50_ms: filteredP50,
        e6_filtered_p95_ms: (e6.filtered_first_page as Summary).p95,
        upsert_batch_ms: load.upsertBatch,
        upsert_time_split: load.split,
        upsert_concurrent_batch_ms: concurrent.batch,
        raw_insert_batch_ms: load.rawBatch,
        raw_insert_explained: writePlan ?? null,
        rows_per_s_by_tenth: load.byTenth,
        load_wall_s: load.wallS,
        e6_ms: e6,
        request_floor_ms: floor,
        explain: plans ?? null,
        e6_after_analyze: afterAnalyze ?? null,
        document_replacement: replacement,
        document_deletion: deletion,
        targets: {
          at_issue_size: scale >= 1,
          upsert_vs_raw: {
            target: `>= ${TARGET_UPSERT_VS_RAW}`,
            value: upsertVsRaw,
            met: upsertVsRaw === null ? null : upsertVsRaw >= TARGET_UPSERT_VS_RAW,
          },
          e6_filtered_p50_ms: {
            target: `< ${TARGET_FILTERED_P50_MS}`,
            value: filteredP50,
            met: filteredP50 < TARGET_FILTERED_P50_MS,
          },
        },
      };
      return { params, results };
    } finally {
      await db?.end();
    }
  },
};

const EXPLAINED_BATCHES = 5;

/** The median of `EXPLAINED_BATCHES` raw batches explained (one alone varies 2× here). */
async function explainRawBatches(raw: RawInserter, first: number) {
  const plans: PlanSummary[] = [];
  for (let b = 0; b < EXPLAINED_BATCHES; b++) {
    plans.push(await raw.explainBatch(documentId("raw-explained", b), first + b * BATCH, BATCH));
  }
  const median = (values: number[]) => summarize(values).p50;
  const triggers = Object.keys(plans[0]?.triggers_ms ?? {});
  return {
    batches: EXPLAINED_BATCHES,
    plan: plans[0]?.plan,
    execution_ms: median(plans.map((p) => p.execution_ms)),
    triggers_ms: Object.fromEntries(
      triggers.map((name) => [name, median(plans.map((p) => p.triggers_ms?.[name] ?? 0))]),
    ),
  };
}

async function upsertBatch(api: QuarryApi, datasetId: string, docId: string, first: number) {
  const reply = await api.upsertRows(datasetId, {
    document_id: docId,
    rows: rowInputs(first, BATCH),
  });
  const { rows } = reply.body;
  if (reply.body.document_id !== docId || rows.length !== BATCH || rows[0]?.metadata.n !== first) {
    throw new Error(
      `E11 ${docId}: unexpected reply (document_id ${reply.body.document_id}, ${rows.length} rows)`,
    );
  }
  return reply;
}

/** E11 one batch at a time into `datasetId`, each followed by the same batch as raw SQL. */
async function loadSequential(
  api: QuarryApi,
  raw: RawInserter | undefined,
  datasetId: string,
  batches: number,
  progress: (line: string) => void,
) {
  progress(
    `load: ${fmt(batches * BATCH)} rows in ${fmt(batches)} batches over HTTP${raw ? ", alternating with raw SQL" : ""}`,
  );
  const upsertMs: number[] = [];
  const rawMs: number[] = [];
  const timings: TimedReply[] = [];
  const wall = startTimer();
  const tenth = Math.max(1, Math.ceil(batches / 10));
  for (let b = 0; b < batches; b++) {
    const reply = await upsertBatch(api, datasetId, documentId("bench", b), b * BATCH);
    upsertMs.push(reply.ms);
    if (reply.serverTiming) timings.push({ ...reply.serverTiming, http: reply.ms });
    if (raw) rawMs.push(await raw.insertBatch(documentId("raw", b), b * BATCH, BATCH));
    if ((b + 1) % tenth === 0 || b + 1 === batches) {
      const from = Math.max(0, b + 1 - tenth);
      const upsertRate = rate(upsertMs.slice(from));
      const rawRate = raw ? `, raw ${fmt(rate(rawMs.slice(from)))} rows/s` : "";
      progress(
        `load: ${fmt((b + 1) * BATCH)}/${fmt(batches * BATCH)} rows; last ${fmt(b + 1 - from)} batches: upsert ${fmt(upsertRate)} rows/s${rawRate}`,
      );
    }
  }
  const byTenth = (samples: number[]) =>
    Array.from({ length: Math.ceil(samples.length / tenth) }, (_, t) =>
      rate(samples.slice(t * tenth, (t + 1) * tenth)),
    );
  return {
    upsertRowsPerS: rate(upsertMs),
    rawRowsPerS: raw ? rate(rawMs) : null,
    upsertBatch: summarize(upsertMs),
    rawBatch: raw ? summarize(rawMs) : null,
    byTenth: { upsert: byTenth(upsertMs), raw: raw ? byTenth(rawMs) : null },
    split: upsertTimeSplit(timings, upsertMs.length),
    wallS: round(wall() / 1000, 1),
  };
}

/**
 * Where a sequential upsert's time goes (`timeSplit`), with its round trips. Null when some
 * replies lacked the header.
 */
function upsertTimeSplit(timings: TimedReply[], replies: number) {
  if (timings.length !== replies) return null;
  return {
    ...timeSplit(timings),
    round_trips_p50: summarize(timings.map((t) => t.roundTrips)).p50,
  };
}

/** E11 from CLIENTS concurrent clients into a dataset of its own; rows/s over wall-clock time. */
async function loadConcurrent(
  api: QuarryApi,
  datasetId: string,
  rows: number,
  progress: (line: string) => void,
) {
  const batches = rows / BATCH;
  progress(`concurrent load: ${fmt(rows)} rows, ${CLIENTS} clients`);
  const tenth = Math.max(1, Math.ceil(batches / 10));
  const result = await runConcurrent({
    clients: CLIENTS,
    count: batches,
    task: async (b) => {
      await upsertBatch(api, datasetId, documentId("concurrent", b), b * BATCH);
    },
    onProgress: (done) => {
      if (done % tenth === 0) progress(`concurrent load: ${fmt(done * BATCH)}/${fmt(rows)} rows`);
    },
  });
  const rowsPerS = perSecond(result.completed * BATCH, result.elapsedMs);
  progress(`concurrent load: ${fmt(rowsPerS)} rows/s`);
  return { rowsPerS, batch: summarize(result.samples) };
}

/** rows/s of batches of BATCH rows that took `ms` each */
function rate(ms: number[]): number {
  return perSecond(
    ms.length * BATCH,
    ms.reduce((a, b) => a + b, 0),
  );
}

async function sample(requests: number, warmup: number, once: () => Promise<number>) {
  const samples: number[] = [];
  for (let i = 0; i < warmup + requests; i++) {
    const ms = await once();
    if (i >= warmup) samples.push(ms);
  }
  return summarize(samples);
}

/** Plans of E6's statements as the service sends them, and whether the planner has statistics. */
async function explainListing(
  db: pg.Client,
  datasetId: string,
  deepOffset: number,
  filteredOffset: number,
) {
  const bucket = ["bucket", "7"];
  const plans: Record<string, PlanSummary> = {
    filtered_first_page: await explainAnalyze(db, LIST_SQL.equality, [
      datasetId,
      PAGE_SIZE,
      0,
      ...bucket,
    ]),
    filtered_offset: await explainAnalyze(db, LIST_SQL.equality, [
      datasetId,
      PAGE_SIZE,
      filteredOffset,
      ...bucket,
    ]),
    // The same rows through the general path, which a filter other than one equality takes.
    general_filter_first_page: await explainAnalyze(db, LIST_SQL.general, [
      datasetId,
      PAGE_SIZE,
      0,
      ...bucket,
    ]),
    deep_offset: await explainAnalyze(db, LIST_SQL.unfiltered, [datasetId, PAGE_SIZE, deepOffset]),
  };
  const stats = await db.query<{
    table_rows: string;
    reltuples: number;
    last_analyze: Date | null;
    last_autoanalyze: Date | null;
  }>(
    `SELECT (SELECT count(*) FROM rows) AS table_rows, c.reltuples, s.last_analyze, s.last_autoanalyze
     FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'rows'`,
  );
  const row = stats.rows[0];
  return {
    plans,
    table_rows: Number(row?.table_rows ?? 0),
    // reltuples -1 or 0 with no analyze: the planner is working from defaults, not statistics
    reltuples: row?.reltuples ?? null,
    analyzed: Boolean(row?.last_analyze || row?.last_autoanalyze),
  };
}
