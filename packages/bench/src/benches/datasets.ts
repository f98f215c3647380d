import { semanticRankingQuery } from "@quarry/core";
import { LocalHashEmbedder } from "@quarry/providers";
import pg from "pg";
import type { RowInput } from "../harness/api.ts";
import { type Bench, scaled } from "../harness/bench.ts";
import { startBenchTenant } from "../harness/bench-tenant.ts";
import { measureSequential } from "../harness/concurrency.ts";
import { explainAnalyze } from "../harness/explain.ts";
import { fmt } from "../harness/report.ts";
import { servingGraph } from "../harness/serving-graph.ts";
import { round, startTimer, summarize } from "../harness/stats.ts";
import { createTextCorpus } from "../harness/text-corpus.ts";
import { waitForVectorIndex } from "../harness/vector-index-wait.ts";

/**
 * `pnpm bench datasets`: what one dataset's requests cost as the database holds more datasets.
 * Each dataset's graph vectors are a partition of `indexed_vectors` with its own HNSW index
 * (docs/indexing.md#vector-search); until migration `0017` they were partial indexes on one
 * table, which Postgres weighed for every statement on it and scanned whole to build a new
 * one. This measures, with 1, 100 and 1,000 datasets in the database (× BENCH_SCALE, the
 * first step always 1), that one dataset's requests do not pay for the others:
 * - creating a dataset (its partition, key and empty graph, attached);
 * - E2 semantic on a dataset of MEASURED_ROWS rows whose graph is built, one client;
 * - E11 replacing a document of 10 rows of it (the replaced rows leave `indexed_vectors` and
 *   the backlog: a DELETE on both);
 * - with DATABASE_URL: E2's own statement under EXPLAIN ANALYZE, its planning and execution.
 * The added datasets are empty: their partitions and indexes, not their rows, are what a
 * statement on `indexed_vectors` would pay for if it were planned over all of them.
 */
const STEPS = [1, 100, 1000];
const MEASURED_ROWS = 1000;
const BATCH = 100;
const REPLACE_ROWS = 10;
const REQUESTS = 60;
const REPLACES = 20;
const WARMUP = 10;
const EXPLAINS = 5;
const MODEL = "local/hash";
const DIMENSIONS = 384;
const TOP_K = 10;

const corpus = createTextCorpus({ seed: 11, chars: 500 });

export const datasetsBench: Bench = {
  name: "datasets",
  summary:
    "one dataset's E2, E11 replace and dataset creation as the database holds 1–1,000 datasets",
  async run({ target, http, scale, progress }) {
    const steps = [
      ...new Set([1, ...STEPS.slice(1).map((n) => scaled(n, scale, { min: 2 }))]),
    ].sort((a, b) => a - b);
    const params = {
      dataset_steps: steps,
      measured_rows: MEASURED_ROWS,
      embedding_model: MODEL,
      e2_requests: REQUESTS,
      replaces: REPLACES,
      replace_rows: REPLACE_ROWS,
      added_datasets: "empty, same model",
      raw_sql: target.databaseUrl !== undefined,
      stack: target.mode,
    };
    const { api, apiKey: token } = await startBenchTenant(
      { http, target, progress },
      "datasets",
      params,
    );
    const measured = await api.createDataset({ name: "measured", embedding_model: MODEL });
    for (let first = 0; first < MEASURED_ROWS; first += BATCH) {
      await api.upsertRows(measured.id, {
        document_id: `doc-${first / BATCH}`,
        rows: rowsFrom(first, BATCH),
      });
    }
    // Its graph built and its ef_search measured (due at 1,000 rows): every step then searches
    // with the list size the raw statement is explained with.
    const { vectorIndex } = await waitForVectorIndex(api, measured.id, MEASURED_ROWS, progress);
    const efSearch = vectorIndex.ef_search;
    progress(`measured dataset: ${MEASURED_ROWS} rows in its graph, ef_search ${efSearch}`);

    const db = target.databaseUrl
      ? new pg.Client({ connectionString: target.databaseUrl })
      : undefined;
    await db?.connect();
    const embedder = new LocalHashEmbedder(DIMENSIONS);
    const searchPath = `/api/datasets/${measured.id}/search`;
    try {
      const results = [];
      let datasets = 1;
      for (const step of steps) {
        const creations: number[] = [];
        for (; datasets < step; datasets++) {
          const elapsed = startTimer();
          await api.createDataset({ name: `empty-${datasets}`, embedding_model: MODEL });
          creations.push(elapsed());
        }
        const e2 = await measureSequential(
          async (i) => {
            const elapsed = startTimer();
            await http.post(
              searchPath,
              { query: corpus.query(i).text, top_k: TOP_K, alpha: 1 },
              { token },
            );
            return elapsed();
          },
          REQUESTS,
          WARMUP,
        );
        const replace = await measureSequential(
          async (i) => {
            const elapsed = startTimer();
            await api.upsertRows(measured.id, {
              document_id: "replaced",
              rows: rowsFrom(50_000 + i * REPLACE_ROWS, REPLACE_ROWS),
            });
            return elapsed();
          },
          REPLACES,
          WARMUP,
        );
        const statement = db
          ? await explainE2(db, { id: measured.id, efSearch }, (i) =>
              embedder.embedOne(corpus.query(i).text),
            )
          : null;
        const result = {
          datasets: step,
          create_dataset_ms: creations.length > 0 ? summarize(creations) : null,
          e2_semantic_ms: e2,
          e11_replace_ms: replace,
          e2_statement: statement,
        };
        results.push(result);
        progress(
          `${fmt(step)} datasets: E2 p50 ${e2.p50} ms, E11 replace p50 ${replace.p50} ms` +
            (statement
              ? `, E2 statement planned in ${statement.planning_ms_p50} ms, run in ${statement.execution_ms_p50} ms`
              : "") +
            (result.create_dataset_ms
              ? `; creating a dataset p50 ${result.create_dataset_ms.p50} ms`
              : ""),
        );
      }
      const first = results[0];
      const last = results[results.length - 1];
      return {
        params,
        results: {
          steps: results,
          growth:
            first && last && first !== last
              ? {
                  from_datasets: first.datasets,
                  to_datasets: last.datasets,
                  e2_p50_ms: [first.e2_semantic_ms.p50, last.e2_semantic_ms.p50],
                  e11_replace_p50_ms: [first.e11_replace_ms.p50, last.e11_replace_ms.p50],
                  e2_planning_ms:
                    first.e2_statement && last.e2_statement
                      ? [first.e2_statement.planning_ms_p50, last.e2_statement.planning_ms_p50]
                      : null,
                }
              : null,
        },
      };
    } finally {
      await db?.end();
    }
  },
};

function rowsFrom(first: number, count: number): RowInput[] {
  return Array.from({ length: count }, (_, k) => ({ data: { text: corpus.text(first + k).text } }));
}

/** E2's statement as the service sends it, explained EXPLAINS times: planning and execution p50. */
async function explainE2(
  db: pg.Client,
  dataset: { id: string; efSearch: number },
  vectorOf: (i: number) => number[],
) {
  const planning: number[] = [];
  const execution: number[] = [];
  const graph = await servingGraph(db, dataset.id);
  for (let i = 0; i < EXPLAINS; i++) {
    const query = semanticRankingQuery(
      { ...dataset, ...graph, dimensions: DIMENSIONS, embeddingModel: MODEL },
      vectorOf(i),
      TOP_K,
    );
    const plan = await explainAnalyze(db, query.text, query.params);
    planning.push(plan.planning_ms);
    execution.push(plan.execution_ms);
  }
  return {
    planning_ms_p50: round(summarize(planning).p50, 2),
    execution_ms_p50: round(summarize(execution).p50, 2),
  };
}
