import { type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { scaledVectorOf } from "../rows/vector-transfer.ts";
import { type QueryText, queryText } from "./query-text.ts";
import { exactVectorExpression, exactVectorType, graphVectorExpression } from "./search-indexes.ts";
import { datasetEfSearch, MAX_EF_SEARCH, VECTOR_SEARCH_TUNING } from "./vector-search-tuning.ts";

type SearchedDataset = Pick<
  DatasetRecord,
  "id" | "dimensions" | "embeddingModel" | "efSearch" | "graphGeneration" | "graphEncoding"
>;

/**
 * Vector search over the dataset's HNSW index, and the settings it runs with. A statement
 * that uses it must list `queryVectorCte()` among its CTEs.
 */
export class SemanticSearch {
  /**
   * The query's vector, parsed once per statement: a statement names it 4–6 times, and each
   * parse of a dense 384-d literal cost ~0.8 ms in PGlite (see `vector-transfer.ts`). A scalar
   * subquery is an InitPlan, evaluated once, and HNSW can order by it like by a constant.
   */
  readonly queryVector = sql.raw("(SELECT v FROM quarry_query_vector)");
  /**
   * The query's vector as the dataset's graph orders by it (`graphVectorExpression`): the
   * same as `queryVector` for a full-precision graph; in half precision, converted once.
   */
  readonly graphQueryVector: SQL;
  readonly #vector: number[];

  constructor(
    readonly dataset: SearchedDataset,
    vector: number[],
    readonly filter: SQL | undefined,
  ) {
    this.#vector = vector;
    this.graphQueryVector =
      dataset.graphEncoding === "vector"
        ? this.queryVector
        : sql.raw("(SELECT g FROM quarry_query_vector)");
  }

  /**
   * `quarry_query_vector(v[, g])`: the query's vector in full precision, for `queryVector`,
   * and in the graph's encoding when that differs, for `graphQueryVector`.
   */
  queryVectorCte(): SQL {
    const vector = scaledVectorOf(this.#vector, this.dataset.dimensions);
    const exact = sql`${vector}::${sql.raw(exactVectorType(this.dataset.dimensions))}`;
    if (this.dataset.graphEncoding === "vector") {
      return sql`quarry_query_vector AS MATERIALIZED (SELECT ${exact} AS v)`;
    }
    // The graph's own expression of the vector (its cast of `v` to `vector(n)` is a no-op).
    return sql`quarry_query_vector AS MATERIALIZED (
      SELECT q.v, ${graphVectorExpression(this.dataset, "q.v")} AS g
      FROM (SELECT ${exact} AS v) AS q)`;
  }

  /**
   * The cosine distance to the query, in [0, 2], of the row whose id is `rowId`, computed
   * exactly; null for a row without an embedding. The vector is read from the row's place in
   * the graph (`indexed_vectors`) or the backlog, which hold it inline and equal to the row's
   * (the triggers keep them so), not from `rows`: there it lives in TOAST, one more lookup per
   * row (1,000 distances: 3.5–3.9 ms from `rows`, 2.2–2.6 ms from the graph's table, native).
   */
  storedDistance(rowId: SQL): SQL {
    // Aliases of their own, so that they shadow no alias `rowId` may name.
    const stored = sql`coalesce(
      (SELECT sv.embedding FROM indexed_vectors sv
       WHERE sv.dataset_id = ${this.dataset.id} AND sv.row_id = ${rowId}),
      (SELECT sb.embedding FROM vector_backlog sb
       WHERE sb.dataset_id = ${this.dataset.id} AND sb.row_id = ${rowId}))`;
    return sql`(${stored}::${sql.raw(exactVectorType(this.dataset.dimensions))} <=> ${this.queryVector})`;
  }

  /**
   * The `limit` nearest rows `(id, distance)`, in no particular order (callers sort on
   * `distance`). A dataset's rows are either in its serving HNSW graph (`indexed_vectors`, of
   * the serving generation or older), moved in for its next graph by a bulk build under way
   * (a newer generation, see `indexVectors`), or in the backlog that waits for them
   * (`vector_backlog`, see `indexVectorBacklog`); each side gives its `limit` nearest and the
   * union holds the overall `limit` nearest. Unfiltered, the graph side is an HNSW scan: the
   * `dataset_id` predicate prunes `indexed_vectors` to the dataset's partition, and the
   * expression and generation are its index's, so the planner can use it; the other two are
   * ranked exactly. With a filter it depends on how many rows pass it, which one statement
   * finds out first (`probe`, at most `exactFilterRows` + 1 rows read):
   * - few: all of them are ranked exactly — recall 1, and cheaper than walking the graph past
   *   the many rows a selective filter rejects;
   * - many: pgvector's iterative index scan walks the graph until `limit` rows pass the filter
   *   (or `maxScanTuples` rows were visited), in relaxed order; the backlog's rows that pass
   *   it are ranked exactly.
   * Every side reports the exact distance (full precision, `exactVectorExpression`): a graph
   * in half precision only orders the walk, so its candidates and the backlog's compare fairly.
   */
  candidatesSql(limit: number): SQL {
    // `indexed_vectors` and `vector_backlog` are kept by triggers on `rows`: packages/db/README.md
    const graph = graphVectorExpression(this.dataset, "v.embedding");
    const exact = exactVectorExpression(this.dataset.dimensions, "v.embedding");
    // A bulk build's vectors, which no serving graph takes yet: ranked exactly, like the
    // backlog's.
    const newer = sql`SELECT v.row_id AS id, (${exact} <=> ${this.queryVector}) AS distance
      FROM indexed_vectors v`;
    const ofNewer = newerVectors(this.dataset);
    // The backlog is ranked on its own copies of the embeddings (equal to the rows', kept so
    // by the same triggers): no TOAST fetch from `rows` per waiting row.
    if (!this.filter) {
      // Its nearest are read off its key whatever the planner's statistics say of the dataset's
      // share of the table (`quarry_nearest_waiting_rows`, migration 0032): a scan of the whole
      // table would read every dataset's waiting rows. The LIMIT cuts nothing; it tells the
      // planner how many rows come back, where it would take a function's for 1,000 and plan
      // the joins to the candidates (`rows`, a hybrid's keyword side) for that many.
      return sql`(${this.graphSql(sql`LIMIT ${limit}::int`)})
      UNION ALL
      (${newer} WHERE ${ofNewer} ORDER BY 2, 1 LIMIT ${limit}::int)
      UNION ALL
      (SELECT w.id, w.distance
       FROM quarry_nearest_waiting_rows(${this.dataset.id}, ${this.queryVector}, ${limit}::int) AS w
       LIMIT ${limit}::int)`;
    }
    // Filtered, the backlog's entries are joined to their rows and the filter, a join whose
    // plan the planner's estimates should choose (a large backlog and a filter that passes few
    // rows: by the filter's index). The joined rows are the dataset's, as their entries are;
    // said again on `rows` (`ofDatasetRows`), it lets the planner read only the dataset's rows
    // that pass the filter, by the filter's index, where it otherwise hashed every dataset's
    // (10k waiting rows of one of five datasets, 52k rows in all: 75 ms, against 31).
    const ofDatasetRows = sql`r.dataset_id = ${this.dataset.id}`;
    const waiting = exactVectorExpression(this.dataset.dimensions, "b.embedding");
    const backlogRanked = sql`SELECT b.row_id AS id, (${waiting} <=> ${this.queryVector}) AS distance
      FROM vector_backlog b`;
    const ofDataset = sql`b.dataset_id = ${this.dataset.id}`;
    const cap = VECTOR_SEARCH_TUNING.exactFilterRows;
    const base = sql`FROM rows r WHERE r.dataset_id = ${this.dataset.id} AND r.embedding IS NOT NULL`;
    return sql`WITH probe AS MATERIALIZED (
        SELECT r.id ${base} AND ${this.filter} LIMIT ${cap + 1}::int
      ),
      few AS (SELECT count(*) <= ${cap}::int AS yes FROM probe)
      (SELECT p.id, ${this.storedDistance(sql`p.id`)} AS distance
       FROM probe p
       WHERE (SELECT yes FROM few)
       ORDER BY 2, 1 LIMIT ${limit}::int)
      UNION ALL
      (SELECT v.row_id AS id, (${exact} <=> ${this.queryVector}) AS distance
       FROM indexed_vectors v JOIN rows r ON r.id = v.row_id
       WHERE ${this.servedVectors()} AND ${this.filter} AND NOT (SELECT yes FROM few)
       ORDER BY ${graph} <=> ${this.graphQueryVector} LIMIT ${limit}::int)
      UNION ALL
      (${newer} JOIN rows r ON r.id = v.row_id
       WHERE ${ofNewer} AND ${ofDatasetRows} AND ${this.filter} AND NOT (SELECT yes FROM few)
       ORDER BY 2, 1 LIMIT ${limit}::int)
      UNION ALL
      (${backlogRanked} JOIN rows r ON r.id = b.row_id
       WHERE ${ofDataset} AND ${ofDatasetRows} AND ${this.filter} AND NOT (SELECT yes FROM few)
       ORDER BY 2, 1 LIMIT ${limit}::int)`;
  }

  /**
   * The graph's nearest `(id, distance)` by an HNSW scan, nearest first in the graph's
   * encoding, with their exact distances: the `dataset_id` predicate prunes `indexed_vectors`
   * to the dataset's partition and the expression is its index's, so the planner can use it.
   * `limit` is the LIMIT clause (`LIMIT n`, or `limit()` to apply the settings in the same
   * statement).
   */
  graphSql(limit: SQL): SQL {
    const graph = graphVectorExpression(this.dataset, "v.embedding");
    const exact = exactVectorExpression(this.dataset.dimensions, "v.embedding");
    return sql`SELECT v.row_id AS id, (${exact} <=> ${this.queryVector}) AS distance
      FROM indexed_vectors v WHERE ${this.servedVectors()}
      ORDER BY ${graph} <=> ${this.graphQueryVector} ${limit}`;
  }

  /** See `servedVectors`. */
  servedVectors(): SQL {
    return servedVectors(this.dataset);
  }

  /** Pure semantic ranking (alpha = 1) of the `topK` nearest rows. */
  rankSql(topK: number): SQL {
    return sql`WITH ${this.queryVectorCte()}
      SELECT r.id, r.data, r.metadata, greatest(0, 1 - c.distance) AS confidence
      FROM (${this.candidatesSql(topK)}) AS c JOIN rows r ON r.id = c.id
      ORDER BY c.distance, c.id
      ${this.limit(topK, topK)}`;
  }

  /**
   * HNSW's candidate list: the dataset's own, measured on its graph for recall@10 (see
   * `calibrateEfSearch`), or its model family's default until then (`datasetEfSearch`); never
   * below the rows asked for, and at most pgvector's ceiling.
   */
  efSearch(candidates: number): number {
    return Math.min(MAX_EF_SEARCH, Math.max(candidates, datasetEfSearch(this.dataset)));
  }

  /**
   * The statement's LIMIT, which also applies the HNSW settings: pgvector reads them when the
   * index scan starts, and a Limit node evaluates its count (this sub-select, so the
   * `set_config` calls) before it asks its input for the first row. `set_config(…, true)` is
   * local to the transaction — the statement itself, outside an explicit one — so it needs no
   * separate round trip and leaks into no other query.
   */
  limit(count: number, candidates: number): SQL {
    const settings: [string, SQL][] = [
      ["hnsw.ef_search", sql`${String(this.efSearch(candidates))}::text`],
    ];
    if (this.filter) {
      settings.push(
        ["hnsw.iterative_scan", sql`${"relaxed_order"}::text`],
        ["hnsw.max_scan_tuples", sql`${String(VECTOR_SEARCH_TUNING.maxScanTuples)}::text`],
      );
    }
    const calls = sql.join(
      settings.map(([name, value]) => sql`set_config(${name}, ${value}, true)`),
      sql`, `,
    );
    return sql`LIMIT (SELECT ${count}::int FROM (SELECT ${calls}) AS quarry_search_settings)`;
  }
}

/**
 * The predicate of the vectors a dataset's serving graph holds (alias `v`): its partition's,
 * of the serving generation or older (`datasets.graph_generation`). It repeats the graph's own
 * predicate (a partial index, `quarry_vector_graph_index_sql`), with the generation as a literal
 * so that the planner matches it whatever the driver's plan caching.
 */
export function servedVectors(dataset: Pick<DatasetRecord, "id" | "graphGeneration">): SQL {
  return sql`v.dataset_id = ${dataset.id} AND v.graph_generation <= ${generationLiteral(dataset)}`;
}

/**
 * The predicate of the rest of the dataset's graph vectors (alias `v`): those a bulk build moved
 * in for its next graph, of a newer generation than the serving one, which searches rank
 * exactly until that graph serves. Found through the generation's btree: nearly always none.
 */
export function newerVectors(dataset: Pick<DatasetRecord, "id" | "graphGeneration">): SQL {
  return sql`v.dataset_id = ${dataset.id} AND v.graph_generation > ${generationLiteral(dataset)}`;
}

/** The serving generation as a literal: an integer the database gave, checked as one. */
function generationLiteral(dataset: Pick<DatasetRecord, "graphGeneration">): SQL {
  const generation = dataset.graphGeneration;
  if (!Number.isSafeInteger(generation) || generation < 0) {
    throw new Error(`invalid graph generation ${generation}`);
  }
  return sql.raw(String(generation));
}

/**
 * The statement E2 sends for an unfiltered semantic search (alpha = 1), as Postgres receives
 * it: for callers that run it over a driver of their own, such as the search bench's raw-SQL
 * baseline, so that they measure exactly what the service runs.
 */
export function semanticRankingQuery(
  dataset: SearchedDataset,
  vector: number[],
  topK: number,
): QueryText {
  return queryText(new SemanticSearch(dataset, vector, undefined).rankSql(topK));
}
