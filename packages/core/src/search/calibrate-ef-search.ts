import { type CalibrationQueries, type Database, datasets } from "@quarry/db";
import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import type { ProjectContext } from "../shared/context.ts";
import { queryRows } from "./query-rows.ts";
import { loadQuerySamples, QUERY_SAMPLES, samplesCallForCalibration } from "./query-samples.ts";
import { exactVectorExpression } from "./search-indexes.ts";
import { SemanticSearch, servedVectors } from "./semantic-ranking.ts";
import { MAX_EF_SEARCH } from "./vector-search-tuning.ts";

/** How `calibrateEfSearch` measures; see there. */
export const EF_SEARCH_CALIBRATION = {
  /** graph vectors before the first measurement (below, the family default serves) */
  minRows: 1000,
  /** measure again once the graph has grown this many times since the last measurement */
  growth: 2,
  /**
   * phrases per measurement while the dataset has fewer searches kept than
   * `QUERY_SAMPLES.minForCalibration`; from then on, every kept search (up to
   * `QUERY_SAMPLES.slots`)
   */
  queries: 30,
  /** words in a query: a short phrase from a stored text, as searches mostly are */
  queryWords: { min: 3, max: 6 },
  /** recall@k is measured for this k (E2's top_k is 3 by default, 10 is what users test) */
  k: 10,
  /** the recall@10 searches are promised (docs/indexing.md) */
  promisedRecall: 0.95,
  /**
   * How sure a measurement must be that the dataset's searches get `promisedRecall`: the
   * chosen size's recall over the sample, minus this many standard errors of it (one-sided
   * 95 %), must reach the promise. Queries differ widely (per-query recall@10 has a standard
   * deviation of 0.10–0.15 near 0.95 on the search benchmark's corpus), so a fixed target
   * over a small sample picks sizes from run to run that are too short as often as too long;
   * a bound asks for headroom where the sample is small or its queries disagree, and little
   * where many queries agree.
   */
  confidence: 1.645,
  /**
   * list sizes tried, smallest first (pgvector's default is 40, its ceiling 1,000), about
   * 25 % apart: a search's cost grows with the list, so a coarse step overshoots by as much
   */
  ladder: [40, 64, 100, 128, 160, 200, 250, 320, 400, 500, 640, 800, MAX_EF_SEARCH],
} as const;

export type EfSearchCalibration =
  | {
      measured: false;
      /** why not: not due yet, the dataset is gone, or its graph is too small to measure */
      reason: "not_due" | "no_dataset" | "too_small";
      /** the figure the decision was made on (rows or graph vectors) */
      rows: number;
    }
  | {
      measured: true;
      efSearch: number;
      /** recall@10 at `efSearch` over the sample */
      recall: number;
      /** the lower confidence bound of that recall (`confidence` standard errors below it) */
      lowerBound: number;
      /** vectors in the graph when measured */
      rows: number;
      queries: number;
      /** the dataset's own searches, or phrases of its stored texts */
      queriesFrom: CalibrationQueries;
      /** whether this measurement was stored (false: another calibration stored one first) */
      stored: boolean;
      ms: number;
    };

type Tuned = Pick<
  DatasetRecord,
  | "id"
  | "dimensions"
  | "embeddingModel"
  | "efSearchRows"
  | "efSearchQueries"
  | "efSearchQueryCount"
  | "columns"
  | "graphGeneration"
  | "graphEncoding"
>;

/**
 * Measures the HNSW candidate list size a dataset's graph needs for its searches to get
 * recall@10 ≥ `promisedRecall`, with confidence, and stores it on the dataset (`ef_search`,
 * with the recall measured, the graph's size, the queries ranked and the time), when it is
 * due: first once the graph holds `minRows` vectors, then each time it has grown `growth`
 * times, and again when the dataset has searches enough to improve the last measurement
 * (`samplesCallForCalibration`: its first `minForCalibration` searches after a measurement on
 * phrases, then twice the searches the last one ranked, up to the ring). Deciding costs one small
 * statement (the dataset's row, its keyword statistics, which count the rows that have text,
 * i.e. the embedded ones, and how many searches it keeps), so the vector indexer calls this
 * after every batch it moves into a valid graph, drained or not: the measurement itself waits
 * until the graph (not the dataset) holds the size that is due.
 *
 * The measurement's queries are the dataset's own: the query vectors of its recent searches
 * (`search_query_samples`, query-samples.ts) once it keeps `QUERY_SAMPLES.minForCalibration`
 * of them, so the recall measured is the one its searches get. Until then, `queries` queries
 * as people write them — a short phrase (3–6 words) taken from a random stored text, embedded
 * with the dataset's own model. (Synthetic vectors mislead in both directions: the sum of two
 * unrelated stored vectors needs ef_search 1000 for 0.95 at 100k `local/hash` rows, a stored
 * vector nudged towards a neighbour reaches 0.97 at 100, while short text queries need 640
 * there; and phrases are harder than three topic words: 400 against 250 at 100k rows for
 * 0.97, query-samples.ts.) Each query
 * is ranked exactly
 * over the graph's vectors and then by the graph itself at increasing list sizes (`ladder`),
 * through the statement E2 uses (`SemanticSearch.graphSql`, settings applied by its LIMIT), so
 * it measures the real index with the real expression and predicate. The smallest size whose
 * recall's lower confidence bound (`recallBound`) reaches the promise wins; if none does, the
 * ceiling, with the recall it reached.
 *
 * Cost: one exact scan of the dataset's graph vectors a query (~60 ms at 100k 384-d vectors,
 * native), then a graph search a query for each size tried (~5–8 ms there); at 128 queries,
 * ~15 s of one core at 100k, in the ingest worker, each time a measurement is due.
 *
 * Concurrency (packages/db/CONCURRENCY.md): only plain reads, one statement each (no
 * transaction held across them, so an embedded database serves other requests in between),
 * and one UPDATE of the dataset's non-key columns, which takes `FOR NO KEY UPDATE` — no
 * conflict with writers' `FOR KEY SHARE`. A concurrent calibration of the same dataset stores
 * nothing (the UPDATE is a compare-and-set on the previous measurement's size and queries).
 */
export async function calibrateEfSearch(
  ctx: ProjectContext,
  datasetId: string,
  options: {
    force?: boolean;
    /** the graph was just rebuilt (a bulk build): due again at any size from `minRows` */
    rebuilt?: boolean;
  } = {},
): Promise<EfSearchCalibration> {
  const started = Date.now();
  const { db } = ctx;
  const c = EF_SEARCH_CALIBRATION;
  // The row count is the trigger-kept keyword statistics' (packages/db/README.md).
  const [state] = await queryRows<
    Tuned & { rows: number | string | null; samples: number | string }
  >(
    db,
    sql`SELECT d.id, d.dimensions, d.embedding_model AS "embeddingModel", d.columns,
               d.ef_search_rows AS "efSearchRows", d.ef_search_queries AS "efSearchQueries",
               d.ef_search_query_count AS "efSearchQueryCount",
               d.graph_generation AS "graphGeneration", d.graph_encoding AS "graphEncoding",
               (SELECT count(*) FROM search_query_samples s WHERE s.dataset_id = d.id) AS samples,
               (SELECT k.row_count + coalesce((SELECT sum(x.row_count) FROM keyword_dataset_deltas x
                                               WHERE x.dataset_id = k.dataset_id), 0)
                FROM keyword_datasets k WHERE k.dataset_id = d.id) AS rows
        FROM datasets d WHERE d.id = ${datasetId}`,
  );
  if (!state) return { measured: false, reason: "no_dataset", rows: 0 };
  const dataset: Tuned = {
    id: state.id,
    dimensions: Number(state.dimensions),
    embeddingModel: state.embeddingModel,
    efSearchRows: state.efSearchRows === null ? null : Number(state.efSearchRows),
    efSearchQueries: state.efSearchQueries,
    efSearchQueryCount: state.efSearchQueryCount === null ? null : Number(state.efSearchQueryCount),
    columns: state.columns,
    graphGeneration: Number(state.graphGeneration),
    graphEncoding: state.graphEncoding,
  };
  const due = dueAt(dataset.efSearchRows);
  const rows = Number(state.rows ?? 0);
  const samples = Number(state.samples);
  // Grown enough (or rebuilt: a new graph), or measured on phrases and now able to measure on
  // searches.
  const grown = rows >= due || (options.rebuilt === true && rows >= c.minRows);
  if (!options.force && !grown && !samplesCallForCalibration(dataset, samples)) {
    return { measured: false, reason: "not_due", rows };
  }

  const queriesFrom: CalibrationQueries =
    samples >= QUERY_SAMPLES.minForCalibration ? "searches" : "stored_texts";
  const sample = await sampleGraph(db, dataset, queriesFrom === "searches" ? 0 : c.queries);
  const smallest = options.force ? c.k : grown && !options.rebuilt ? due : c.minRows;
  if (sample.rows < smallest) return { measured: false, reason: "too_small", rows: sample.rows };
  const queries =
    queriesFrom === "searches"
      ? await loadQuerySamples(db, dataset.id)
      : await embedTexts(ctx, dataset, queryPhrases(sample.texts));
  if (queries.length === 0) return { measured: false, reason: "too_small", rows: sample.rows };
  const k = Math.min(c.k, sample.rows);

  // The k-th exact distance of each query: a graph result at most this far is a true neighbour
  // (so ties at the boundary count as found, as in ann-benchmarks).
  const kth: number[] = [];
  for (const query of queries) {
    const exact = await queryRows<{ distance: number | string }>(db, exactSql(dataset, query, k));
    kth.push(Number(exact[exact.length - 1]?.distance ?? 0));
  }

  const wanted = queries.length * k;
  let chosen: { efSearch: number; recall: number; lowerBound: number } | undefined;
  for (const efSearch of c.ladder) {
    const hits: number[] = [];
    let found = 0;
    for (const [i, query] of queries.entries()) {
      const s = new SemanticSearch({ ...dataset, efSearch }, query, undefined);
      const got = await queryRows<{ distance: number | string }>(
        db,
        sql`WITH ${s.queryVectorCte()} ${s.graphSql(s.limit(k, k))}`,
      );
      const hit = Math.min(k, got.filter((r) => Number(r.distance) <= (kth[i] ?? 0) + 1e-6).length);
      hits.push(hit);
      found += hit;
      // Short of the promise even if every query left found all k: on to the next size.
      const best = (found + (queries.length - i - 1) * k) / wanted;
      if (best < c.promisedRecall && efSearch < MAX_EF_SEARCH) break;
    }
    if (hits.length < queries.length) continue;
    const measured = recallBound(hits, k);
    if (measured.lowerBound >= c.promisedRecall || efSearch === MAX_EF_SEARCH) {
      chosen = { efSearch, ...measured };
      break;
    }
  }
  if (!chosen) throw new Error("unreachable: the ladder ends at the ceiling");

  const stored = await db
    .update(datasets)
    .set({
      efSearch: chosen.efSearch,
      efSearchRecall: chosen.recall,
      efSearchRows: sample.rows,
      efSearchQueries: queriesFrom,
      efSearchQueryCount: queries.length,
      efSearchMeasuredAt: new Date(),
    })
    .where(
      and(
        eq(datasets.id, dataset.id),
        dataset.efSearchRows === null
          ? isNull(datasets.efSearchRows)
          : eq(datasets.efSearchRows, dataset.efSearchRows),
        dataset.efSearchQueries === null
          ? isNull(datasets.efSearchQueries)
          : eq(datasets.efSearchQueries, dataset.efSearchQueries),
        dataset.efSearchQueryCount === null
          ? isNull(datasets.efSearchQueryCount)
          : eq(datasets.efSearchQueryCount, dataset.efSearchQueryCount),
      ),
    )
    .returning({ id: datasets.id });
  return {
    measured: true,
    ...chosen,
    rows: sample.rows,
    queries: queries.length,
    queriesFrom,
    stored: stored.length > 0,
    ms: Date.now() - started,
  };
}

/** Graph vectors at which a dataset measured at `measuredRows` (or never) is measured again. */
export function dueAt(measuredRows: number | null): number {
  const c = EF_SEARCH_CALIBRATION;
  return measuredRows === null ? c.minRows : Math.max(c.minRows, measuredRows * c.growth);
}

/**
 * Recall@k over a sample of queries (`hits`: how many of its k true neighbours each query's
 * graph search found), and its lower confidence bound: the mean minus `confidence` standard
 * errors of the mean, estimated from the queries' own spread. A sample whose queries all
 * agree gets a bound equal to its mean.
 */
export function recallBound(
  hits: readonly number[],
  k: number,
): { recall: number; lowerBound: number } {
  const n = hits.length;
  if (n === 0) return { recall: 0, lowerBound: 0 };
  const recalls = hits.map((h) => Math.min(h, k) / k);
  const mean = recalls.reduce((a, b) => a + b, 0) / n;
  const variance = n > 1 ? recalls.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1) : 0;
  const lowerBound = mean - EF_SEARCH_CALIBRATION.confidence * Math.sqrt(variance / n);
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return { recall: round(mean), lowerBound: round(lowerBound) };
}

/**
 * The graph's size and the embedded text of `n` of its rows at random. The `dataset_id`
 * predicate prunes `indexed_vectors` to the dataset's partition, and the generation keeps to the
 * serving graph's vectors (a bulk build's newer ones are not in it yet); only the picked rows
 * are read from `rows`.
 */
async function sampleGraph(
  db: Database,
  dataset: Tuned,
  n: number,
): Promise<{ rows: number; texts: string[] }> {
  const column = dataset.columns.find((c) => c.embed)?.name ?? null;
  const text = column ? sql`r.data ->> ${column}` : sql`r.data::text`;
  const served = servedVectors(dataset);
  const found = await queryRows<{ rows: number | string; text: string | null }>(
    db,
    sql`WITH picked AS (
        SELECT v.row_id AS id FROM indexed_vectors v WHERE ${served}
        ORDER BY random() LIMIT ${n}::int)
    SELECT (SELECT count(*) FROM indexed_vectors v WHERE ${served}) AS rows,
           ${text} AS text
    FROM (SELECT 1) AS one
    LEFT JOIN (picked p JOIN rows r ON r.id = p.id) ON true`,
  );
  return {
    rows: Number(found[0]?.rows ?? 0),
    texts: found.flatMap((r) => (r.text ? [r.text] : [])),
  };
}

/**
 * The query's `k` nearest graph vectors, exactly: every distance is computed in a
 * materialized CTE, which no index can serve (pgvector's indexes only order), then sorted.
 * A scan of the dataset's partition of `indexed_vectors` alone, whose entries are exactly its
 * rows' current vectors (the triggers keep them so: packages/db/CONCURRENCY.md); a join to
 * `rows` cost 60 % more (95 against 59 ms a query at 100k vectors, native).
 */
function exactSql(dataset: Tuned, query: number[], k: number): SQL {
  const s = new SemanticSearch({ ...dataset, efSearch: null }, query, undefined);
  // In full precision whatever the graph's encoding: recall is measured against the true
  // neighbours, so a half-precision graph's loss is measured with its walk's.
  const exact = exactVectorExpression(dataset.dimensions, "v.embedding");
  return sql`WITH ${s.queryVectorCte()},
    scored AS MATERIALIZED (
      SELECT v.row_id AS id, (${exact} <=> ${s.queryVector}) AS distance
      FROM indexed_vectors v WHERE ${s.servedVectors()})
    SELECT id, distance FROM scored ORDER BY distance, id LIMIT ${k}::int`;
}

/** A random run of `queryWords` words from each text (the whole text when it is shorter). */
export function queryPhrases(texts: string[], random: () => number = Math.random): string[] {
  const { min, max } = EF_SEARCH_CALIBRATION.queryWords;
  return texts.flatMap((text) => {
    const words = text.split(/\s+/).filter((w) => w.length > 0);
    if (words.length === 0) return [];
    const length = Math.min(words.length, min + Math.floor(random() * (max - min + 1)));
    const from = Math.floor(random() * (words.length - length + 1));
    return [words.slice(from, from + length).join(" ")];
  });
}
