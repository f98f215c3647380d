import { documentSearchQuery, type QueryText, semanticRankingQuery } from "@quarry/core";
import { LocalHashEmbedder } from "@quarry/providers";
import pg from "pg";
import type { createQuarryApi, RowInput } from "../harness/api.ts";
import { type Bench, scaled } from "../harness/bench.ts";
import { startBenchTenant } from "../harness/bench-tenant.ts";
import { measureSequential, runConcurrent } from "../harness/concurrency.ts";
import { explainAnalyze, type PlanSummary } from "../harness/explain.ts";
import type { HttpClient, Reply } from "../harness/http.ts";
import { type QuietDatabase, waitForQuietDatabase } from "../harness/quiet-database.ts";
import { fmt } from "../harness/report.ts";
import { type TimedReply, timeSplit } from "../harness/server-timing.ts";
import { type ServingGraph, servingGraph } from "../harness/serving-graph.ts";
import { perSecond, round, type Summary, startTimer, summarize } from "../harness/stats.ts";
import { createTextCorpus } from "../harness/text-corpus.ts";
import {
  type SearchWhileIndexing,
  searchUntilCalibratedOnSearches,
  waitForVectorIndex,
} from "../harness/vector-index-wait.ts";

/**
 * `pnpm bench search` (issue 5): a hybrid dataset of 100k rows of clustered prose (the
 * harness corpus, ~500 characters a row, `local/hash` embeddings), loaded through E11 in
 * documents of 100 rows; then, over HTTP with 8 concurrent clients, latency and QPS of
 * E2 semantic, E2 hybrid, E2 with a 1%-selective filter, E3 and E1; recall@10 of E2 (plain
 * and filtered) against exact search; and the same top-10 query as raw SQL over `pg`.
 *
 * Queries are the corpus' short search phrases (three topic words). The 1% filter is
 * `{"bucket": b}`: bucket takes each value 0..99 once in every 100 consecutive rows.
 */
const FULL_ROWS = 100_000;
const BATCH = 100;
const LOAD_CLIENTS = 4;
const CLIENTS = 8;
const TOP_K = 10;
const REQUESTS = 400;
const WARMUP = 40;
const SEQUENTIAL_REQUESTS = 100;
/** the sequential runs' first query index: apart from the concurrent runs' queries */
const SEQUENTIAL_FIRST = 20_000;
/**
 * Per-query recall@10 spreads widely (a standard deviation of ~0.12 near 0.95 here), so 50
 * queries put the figure within ±0.03 of the corpus' recall; 200, within ±0.015.
 */
const RECALL_QUERIES = 200;
const BUCKETS = 100;
const MODEL = "local/hash";
const DIMENSIONS = 384;
/** Issue 14's targets (native PostgreSQL, 100k rows). */
const TARGETS = {
  /** E2 semantic, one client */
  e2_semantic_sequential_p50_ms: 10,
  recall_at_10: 0.95,
  /** E3, one client */
  e3_sequential_p50_ms: 10,
  /** one client: HTTP p50 at most the raw statement's p50 plus this */
  http_over_raw_ms: 5,
  /** 8 clients: E2's QPS over HTTP at least this share of the raw statement's from 8 `pg` clients */
  qps_share_of_raw: 0.4,
};

const corpus = createTextCorpus({ seed: 23, chars: 500 });
const bucketOf = (i: number) => (i * 37) % BUCKETS;
const queryText = (i: number) => corpus.query(i).text;

interface SearchReply {
  results: { confidence: number; metadata: { rowId: number; bucket?: number } }[];
}
interface DocumentsReply {
  results: { document_id: string; similarity: number }[];
}
interface FilteredReply {
  document_results: { document_id: string }[];
  results: { metadata: { documentId: string } }[];
}

export const searchBench: Bench = {
  name: "search",
  summary: "E1/E2/E3 p50/p95/QPS at 100k rows, 8 clients; E2 recall@10; raw SQL baseline",
  async run({ target, http, scale, progress }) {
    const total = scaled(FULL_ROWS, scale, { step: BATCH });
    const params = {
      rows: total,
      documents: total / BATCH,
      rows_per_document: BATCH,
      text_chars: 500,
      embedding_model: MODEL,
      dimensions: DIMENSIONS,
      dataset_kind: "hybrid",
      load_clients: LOAD_CLIENTS,
      clients: CLIENTS,
      top_k: TOP_K,
      requests_per_case: REQUESTS,
      warmup_per_case: WARMUP,
      sequential_requests: SEQUENTIAL_REQUESTS,
      recall_queries: RECALL_QUERIES,
      queries: "corpus.query(i): three topic words",
      filter: '{"bucket": b}, b rotating over 0..99 (1% of rows each)',
      raw_sql: target.databaseUrl !== undefined,
      stack: target.mode,
    };
    const tenant = await startBenchTenant({ http, target, progress }, "search", params);
    const { api } = tenant;
    const dataset = await api.createDataset({
      name: "search",
      kind: "hybrid",
      embedding_model: MODEL,
    });
    const token = tenant.apiKey;
    const path = (op: string) => `/api/datasets/${dataset.id}/${op}`;

    const load = await loadRows(api, dataset.id, total, progress);
    // Rows are searchable once written (their vectors wait in a backlog that is ranked
    // exactly); the latencies below are those of the HNSW graph, so it must hold every row.
    // Meanwhile E2 is sampled: what a search costs while the graph catches up.
    const semanticReply = (i: number) =>
      search(http, path("search"), token, { query: queryText(i), top_k: TOP_K, alpha: 1 });
    const semantic = async (i: number) => (await semanticReply(i)).ms;
    const indexed = await waitForVectorIndex(api, dataset.id, total, progress, semantic);
    load.index_catch_up_s = indexed.seconds;
    load.e2_while_indexing = indexed.searchesMeanwhile;
    // The list size a searched dataset settles on: measured on its own searches.
    const calibrated = await searchUntilCalibratedOnSearches(api, dataset.id, semantic, progress);
    load.calibration_on_searches = { searches: calibrated.searches, seconds: calibrated.seconds };
    const vectorIndex = calibrated.vector_index;
    // Steady state: the load's autovacuum done, as minutes after a load in production.
    if (target.databaseUrl) load.settled = await waitForQuietDatabase(target.databaseUrl, progress);

    const cases: Record<string, (i: number) => Promise<number>> = {
      // The floor every request pays before searching: a database connection, the key and
      // the dataset (auth and ownership middleware), as GET /api/datasets/{id} measures it.
      request_floor: async () => (await api.getDataset(dataset.id)).ms,
      e2_semantic: semantic,
      e2_hybrid: async (i) =>
        (
          await search(http, path("search"), token, {
            query: queryText(i),
            top_k: TOP_K,
            alpha: 0.5,
          })
        ).ms,
      e2_filtered: async (i) => {
        const bucket = bucketOf(i);
        const reply = await search(http, path("search"), token, {
          query: queryText(i),
          top_k: TOP_K,
          alpha: 1,
          filter: { bucket },
        });
        if (reply.body.results.some((r) => r.metadata.bucket !== bucket)) {
          throw new Error(`E2 filtered: a result outside bucket ${bucket}`);
        }
        return reply.ms;
      },
      e3: async (i) => {
        const reply = await http.post<DocumentsReply>(
          path("search-documents"),
          { query: queryText(i), top_k: TOP_K },
          { token },
        );
        if (reply.body.results.length === 0) throw new Error("E3 found nothing");
        return reply.ms;
      },
      e1: async (i) => {
        const reply = await http.post<FilteredReply>(
          path("document-filtered-search"),
          { query: queryText(i), top_k_documents: 3, top_k_rows: TOP_K },
          { token },
        );
        const ids = new Set(reply.body.document_results.map((d) => d.document_id));
        if (reply.body.results.some((r) => !ids.has(r.metadata.documentId))) {
          throw new Error("E1 returned a row outside the documents it found");
        }
        return reply.ms;
      },
    };

    const sequential: Record<string, Summary> = {};
    const concurrent: Record<string, Summary & { qps: number }> = {};
    for (const [name, run] of Object.entries(cases)) {
      sequential[name] = await measureSequential(
        run,
        SEQUENTIAL_REQUESTS,
        WARMUP / 4,
        SEQUENTIAL_FIRST,
      );
      concurrent[name] = await measureConcurrent(run, REQUESTS, WARMUP);
      progress(
        `${name}: 1 client p50 ${sequential[name].p50} ms; ${CLIENTS} clients p50 ${concurrent[name].p50} ms, p95 ${concurrent[name].p95} ms, ${concurrent[name].qps} QPS`,
      );
    }

    const db = target.databaseUrl
      ? new pg.Client({ connectionString: target.databaseUrl })
      : undefined;
    await db?.connect();
    try {
      const embedder = new LocalHashEmbedder(DIMENSIONS);
      const embeddingOf = (i: number) => embedder.embedOne(queryText(i));
      const vectorOf = (i: number) => `[${embeddingOf(i).join(",")}]`;
      const recall = db
        ? await measureRecall(http, path("search"), token, db, dataset.id, vectorOf, progress)
        : undefined;
      const served = db ? await servedGraph(db, dataset.id, vectorIndex.ef_search) : undefined;
      const raw =
        target.databaseUrl && served
          ? await measureRawSql(target.databaseUrl, served, embeddingOf, progress)
          : undefined;
      const e3Raw = db ? await measureRawDocumentSearch(db, dataset.id, progress) : undefined;
      // HTTP against raw, query by query: measured minutes apart (above), the two p50s also
      // differ by whatever the machine was doing meanwhile (autovacuum after the load, the
      // graph's pages warming), by up to ~8 ms on a 2-core VM.
      const paired =
        db && served
          ? await measurePaired(semanticReply, (i) => timeRawSemantic(db, served, embeddingOf(i)))
          : undefined;
      if (paired) {
        progress(
          `E2 paired with its raw statement: HTTP p50 ${paired.http.p50} ms, raw p50 ${paired.raw.p50} ms`,
        );
      }
      const plans = db && served ? await explainSearch(db, served, embeddingOf(1)) : undefined;

      const concurrentSemantic = concurrent.e2_semantic as Summary & { qps: number };
      const sequentialSemantic = sequential.e2_semantic as Summary;
      const httpVsRaw =
        raw && paired
          ? {
              sequential: {
                measured: "paired: each query over HTTP and as the raw statement, in turn",
                http_p50_ms: paired.http.p50,
                raw_p50_ms: paired.raw.p50,
                limit_ms: round(paired.raw.p50 + TARGETS.http_over_raw_ms, 2),
                met: paired.http.p50 <= paired.raw.p50 + TARGETS.http_over_raw_ms,
                where_http_goes: paired.breakdown,
              },
              concurrent_qps: {
                http_qps: concurrentSemantic.qps,
                raw_qps: raw.concurrent.qps,
                share: round(concurrentSemantic.qps / raw.concurrent.qps, 3),
                met: concurrentSemantic.qps >= TARGETS.qps_share_of_raw * raw.concurrent.qps,
              },
            }
          : null;
      const results = {
        e2_semantic_sequential_p50_ms: sequentialSemantic.p50,
        e2_semantic_p50_ms: concurrentSemantic.p50,
        e2_semantic_p95_ms: concurrentSemantic.p95,
        e3_sequential_p50_ms: (sequential.e3 as Summary).p50,
        e3_p50_ms: (concurrent.e3 as Summary).p50,
        recall_at_10: recall ? { plain: recall.plain, filtered: recall.filtered } : null,
        // the HNSW list size E2 searched with (and the raw baseline too), as GET dataset shows it
        vector_index: vectorIndex,
        http_vs_raw: httpVsRaw,
        concurrent_ms: concurrent,
        sequential_ms: sequential,
        raw_sql_ms: raw ?? null,
        // E3's statement over `pg`, one client: what of E3's time is the database's
        e3_raw_sql_sequential_ms: e3Raw ?? null,
        load,
        plans: plans ?? null,
        targets: {
          at_issue_size: scale >= 1,
          e2_semantic_sequential_p50_ms: met(
            `<= ${TARGETS.e2_semantic_sequential_p50_ms}`,
            sequentialSemantic.p50,
            sequentialSemantic.p50 <= TARGETS.e2_semantic_sequential_p50_ms,
          ),
          recall_plain: recall
            ? met(`>= ${TARGETS.recall_at_10}`, recall.plain, recall.plain >= TARGETS.recall_at_10)
            : null,
          recall_filtered: recall
            ? met(
                `>= ${TARGETS.recall_at_10}`,
                recall.filtered,
                recall.filtered >= TARGETS.recall_at_10,
              )
            : null,
          e3_sequential_p50_ms: met(
            `<= ${TARGETS.e3_sequential_p50_ms}`,
            (sequential.e3 as Summary).p50,
            (sequential.e3 as Summary).p50 <= TARGETS.e3_sequential_p50_ms,
          ),
          http_over_raw_sequential: httpVsRaw
            ? met(
                `HTTP p50 <= raw SQL p50 + ${TARGETS.http_over_raw_ms} ms`,
                httpVsRaw.sequential,
                httpVsRaw.sequential.met,
              )
            : null,
          qps_share_of_raw: httpVsRaw
            ? met(
                `E2 QPS (8 clients) >= ${TARGETS.qps_share_of_raw} x raw SQL QPS (8 pg clients)`,
                httpVsRaw.concurrent_qps,
                httpVsRaw.concurrent_qps.met,
              )
            : null,
        },
      };
      return { params, results };
    } finally {
      await db?.end();
    }

    async function measureConcurrent(
      run: (i: number) => Promise<number>,
      requests: number,
      warmup: number,
    ) {
      await runConcurrent({
        clients: CLIENTS,
        count: warmup,
        task: async (i) => void (await run(i + 10_000)),
      });
      const samples: number[] = [];
      const result = await runConcurrent({
        clients: CLIENTS,
        count: requests,
        task: async (i) => {
          samples.push(await run(i));
        },
      });
      return { ...summarize(samples), qps: perSecond(result.completed, result.elapsedMs) };
    }
  },
};

function met(target: string, value: unknown, ok: boolean) {
  return { target, value, met: ok };
}

async function search(
  http: HttpClient,
  path: string,
  token: string,
  body: Record<string, unknown>,
) {
  const reply = await http.post<SearchReply>(path, body, { token });
  if (reply.body.results.length !== body.top_k) {
    throw new Error(
      `E2 returned ${reply.body.results.length} results for top_k ${String(body.top_k)}`,
    );
  }
  return reply;
}

function rowInputs(first: number, count: number): RowInput[] {
  return Array.from({ length: count }, (_, k) => {
    const n = first + k;
    const { text, topic } = corpus.text(n);
    return { data: { text }, metadata: { topic, n, bucket: bucketOf(n) } };
  });
}

/** E11 in documents of BATCH rows, from LOAD_CLIENTS clients. */
async function loadRows(
  api: ReturnType<typeof createQuarryApi>,
  datasetId: string,
  total: number,
  progress: (line: string) => void,
) {
  const batches = total / BATCH;
  progress(
    `load: ${fmt(total)} rows in ${fmt(batches)} documents over E11, ${LOAD_CLIENTS} clients`,
  );
  const tenth = Math.max(1, Math.ceil(batches / 20));
  const wall = startTimer();
  const result = await runConcurrent({
    clients: LOAD_CLIENTS,
    count: batches,
    task: async (b) => {
      const reply = await api.upsertRows(datasetId, {
        document_id: `doc-${String(b).padStart(5, "0")}`,
        rows: rowInputs(b * BATCH, BATCH),
      });
      if (reply.body.rows.length !== BATCH)
        throw new Error(`E11 stored ${reply.body.rows.length} rows`);
    },
    onProgress: (done) => {
      if (done % tenth === 0) {
        const s = wall() / 1000;
        progress(
          `load: ${fmt(done * BATCH)}/${fmt(total)} rows, ${fmt((done * BATCH) / s)} rows/s`,
        );
      }
    },
  });
  return {
    rows_per_s: perSecond(result.completed * BATCH, result.elapsedMs),
    batch_ms: summarize(result.samples),
    wall_s: round(wall() / 1000, 1),
    index_catch_up_s: 0,
    e2_while_indexing: [] as SearchWhileIndexing[],
    calibration_on_searches: null as { searches: number; seconds: number } | null,
    settled: null as QuietDatabase | null,
  };
}

/**
 * The statement E2 semantic sends, rendered by core itself (`semanticRankingQuery`, the same
 * `SemanticSearch.rankSql` E2 runs), for the raw baseline, with the same HNSW list size: the
 * dataset's `ef_search` as GET dataset shows it, never below top_k.
 */
function semanticQuery(vector: number[], graph: ServedGraph): QueryText {
  return semanticRankingQuery(
    { ...graph, dimensions: DIMENSIONS, embeddingModel: MODEL },
    vector,
    TOP_K,
  );
}

/** What E2's statement depends on beside the query: the dataset, its list size and graph. */
interface ServedGraph extends ServingGraph {
  id: string;
  efSearch: number;
}

async function servedGraph(db: pg.Client, id: string, efSearch: number): Promise<ServedGraph> {
  return { id, efSearch, ...(await servingGraph(db, id)) };
}

/** Exact top-10 by cosine distance: the materialized CTE keeps the vector index out. */
const EXACT_SQL = (filtered: boolean) => `WITH c AS MATERIALIZED (
  SELECT id, embedding FROM rows WHERE dataset_id = $2 AND embedding IS NOT NULL${filtered ? " AND metadata @> $3::jsonb" : ""})
SELECT id FROM c ORDER BY embedding <=> $1::vector, id LIMIT ${TOP_K}`;

async function measureRecall(
  http: HttpClient,
  path: string,
  token: string,
  db: pg.Client,
  datasetId: string,
  vectorOf: (i: number) => string,
  progress: (line: string) => void,
) {
  progress(`recall@10: ${RECALL_QUERIES} queries, plain and filtered, against exact search`);
  let plainHits = 0;
  let filteredHits = 0;
  for (let i = 0; i < RECALL_QUERIES; i++) {
    const q = 50_000 + i;
    const bucket = bucketOf(q);
    const exact = await db.query<{ id: string }>(EXACT_SQL(false), [vectorOf(q), datasetId]);
    const exactFiltered = await db.query<{ id: string }>(EXACT_SQL(true), [
      vectorOf(q),
      datasetId,
      JSON.stringify({ bucket }),
    ]);
    const plain = await search(http, path, token, { query: queryText(q), top_k: TOP_K, alpha: 1 });
    const filtered = await search(http, path, token, {
      query: queryText(q),
      top_k: TOP_K,
      alpha: 1,
      filter: { bucket },
    });
    const hits = (rows: { id: string }[], got: SearchReply) => {
      const want = new Set(rows.map((r) => Number(r.id)));
      return got.results.filter((r) => want.has(r.metadata.rowId)).length;
    };
    plainHits += hits(exact.rows, plain.body);
    filteredHits += hits(exactFiltered.rows, filtered.body);
  }
  const result = {
    plain: round(plainHits / (RECALL_QUERIES * TOP_K), 4),
    filtered: round(filteredHits / (RECALL_QUERIES * TOP_K), 4),
  };
  progress(`recall@10: plain ${result.plain}, filtered ${result.filtered}`);
  return result;
}

/** E2 semantic's query over `pg` (a client per connection, as the workers do), 1 and 8 clients. */
async function measureRawSql(
  databaseUrl: string,
  graph: ServedGraph,
  embeddingOf: (i: number) => number[],
  progress: (line: string) => void,
) {
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      return client;
    }),
  );
  try {
    const run = (client: pg.Client, i: number) => timeRawSemantic(client, graph, embeddingOf(i));
    const first = clients[0] as pg.Client;
    const sequential = await measureSequential(
      (i) => run(first, i),
      SEQUENTIAL_REQUESTS,
      WARMUP / 4,
      SEQUENTIAL_FIRST,
    );
    await runConcurrent({
      clients: CLIENTS,
      count: WARMUP,
      task: async (i, c) => void (await run(clients[c] as pg.Client, i + 10_000)),
    });
    const samples: number[] = [];
    const result = await runConcurrent({
      clients: CLIENTS,
      count: REQUESTS,
      task: async (i, c) => {
        samples.push(await run(clients[c] as pg.Client, i));
      },
    });
    const out = {
      sequential,
      concurrent: { ...summarize(samples), qps: perSecond(result.completed, result.elapsedMs) },
    };
    progress(
      `raw SQL: 1 client p50 ${out.sequential.p50} ms; ${CLIENTS} clients p50 ${out.concurrent.p50} ms, ${out.concurrent.qps} QPS`,
    );
    return out;
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

/**
 * Plans of the queries as the service sends them: E2's must use the HNSW index, E3's shows
 * whether the postings were read from the index alone.
 */
async function explainSearch(db: pg.Client, graph: ServedGraph, vector: number[]) {
  const datasetId = graph.id;
  const semantic = semanticQuery(vector, graph);
  const documents = documentSearchQuery(datasetId, queryText(1), TOP_K);
  const plans: Record<string, PlanSummary> = {
    e2_semantic: await explainAnalyze(db, semantic.text, semantic.params),
    e3: await explainAnalyze(db, documents.text, documents.params),
  };
  return plans;
}

/**
 * One client, each query run both ways back to back (which goes first alternates), so both
 * sides see the same moment of the machine. The HTTP replies' Server-Timing splits their time
 * (`where_http_goes`, p50s of per-request differences): the database's round trips as the
 * worker saw them (the raw statement plus the driver's hop to the database), the worker's own
 * code beyond them, and what lies outside the app (the client's socket, workerd, and wrangler's
 * dev proxy unless BENCH_VIA=worker).
 */
async function measurePaired(
  http: (i: number) => Promise<Reply<SearchReply>>,
  raw: (i: number) => Promise<number>,
): Promise<{ http: Summary; raw: Summary; breakdown: HttpBreakdown | null }> {
  const httpSamples: number[] = [];
  const rawSamples: number[] = [];
  const timings: (TimedReply & { raw: number })[] = [];
  const warmup = WARMUP / 4;
  for (let i = 0; i < warmup + SEQUENTIAL_REQUESTS; i++) {
    const query = i + 30_000;
    const httpFirst = i % 2 === 0;
    const rawFirst = httpFirst ? undefined : await raw(query);
    const reply = await http(query);
    const rawMs = rawFirst ?? (await raw(query));
    if (i < warmup) continue;
    httpSamples.push(reply.ms);
    rawSamples.push(rawMs);
    const server = reply.serverTiming;
    if (server) timings.push({ ...server, http: reply.ms, raw: rawMs });
  }
  const breakdown =
    timings.length === httpSamples.length
      ? {
          measured: "Server-Timing of the paired HTTP requests: p50s of per-request figures",
          ...timeSplit(timings),
          driver_hop_over_raw_p50_ms: summarize(timings.map((t) => t.db - t.raw)).p50,
        }
      : null;
  return { http: summarize(httpSamples), raw: summarize(rawSamples), breakdown };
}

interface HttpBreakdown {
  measured: string;
  /** the search's statements as the worker waited for them (Server-Timing `db`) */
  database_round_trips_p50_ms: number;
  /** `db` minus the same statement over `pg` from here: the driver's path to the database */
  driver_hop_over_raw_p50_ms: number;
  /** `app` minus `db`: the worker's own code (auth, validation, embedding, JSON) */
  worker_code_p50_ms: number;
  /** the client's time minus `app`: sockets, workerd, and the dev proxy when in the path */
  outside_the_app_p50_ms: number;
}

/** One E2 semantic statement over `pg`, as the service sends it: its milliseconds. */
async function timeRawSemantic(
  client: pg.Client,
  graph: ServedGraph,
  vector: number[],
): Promise<number> {
  const query = semanticQuery(vector, graph);
  const elapsed = startTimer();
  const found = await client.query(query.text, query.params);
  if (found.rows.length !== TOP_K) throw new Error(`raw SQL returned ${found.rows.length} rows`);
  return elapsed();
}

/** E3's statement over `pg`, one client, the queries E3 was measured with over HTTP. */
async function measureRawDocumentSearch(
  db: pg.Client,
  datasetId: string,
  progress: (line: string) => void,
): Promise<Summary> {
  const run = async (i: number) => {
    const query = documentSearchQuery(datasetId, queryText(i), TOP_K);
    const elapsed = startTimer();
    const found = await db.query(query.text, query.params);
    const ms = elapsed();
    if (found.rows.length === 0) throw new Error("raw E3 found nothing");
    return ms;
  };
  const out = await measureSequential(run, SEQUENTIAL_REQUESTS, WARMUP / 4, SEQUENTIAL_FIRST);
  progress(`raw SQL E3: 1 client p50 ${out.p50} ms`);
  return out;
}
