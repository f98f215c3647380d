import { type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { requireDataset } from "../datasets/require-dataset.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { compileFilter } from "../filter/compile-filter.ts";
import { embeddedColumn } from "../rows/row-input.ts";
import { scaledVectorSql, scaleVectors } from "../rows/vector-transfer.ts";
import type { ProjectContext } from "../shared/context.ts";
import { anyTermTsquery, keywordTermsCtes, rowBm25, rowTermArraysCte } from "./keyword-sql.ts";
import { queryRows } from "./query-rows.ts";
import { vectorExpression, vectorType } from "./search-indexes.ts";
import { parseRowSearch } from "./search-params.ts";
import { type ScoredRow, type SearchResult, toSearchResult } from "./search-results.ts";
import { datasetEfSearch, MAX_EF_SEARCH } from "./vector-search-tuning.ts";

/**
 * E2: the dataset's rows ranked by `confidence = alpha · semantic + (1 − alpha) · keyword`
 * (docs/api.md#alpha), where
 * - semantic is the cosine similarity of the row's embedding to the query's, clamped to [0, 1]
 *   (rows stored without an embedding have 0);
 * - keyword is the row's BM25 score over the best BM25 score among the candidates, in [0, 1]
 *   (the "theoretical-min / observed-max" normalisation that fuses well with cosine).
 * alpha = 1 is a pure vector search through the dataset's HNSW index; alpha = 0 a pure
 * keyword search over every row containing a query term. In between, the candidates are the
 * best semantic matches and the best keyword matches (see `hybridSql`), and both scores are
 * computed exactly for each of them.
 */
export async function searchRows(
  ctx: ProjectContext,
  datasetId: string,
  body: Record<string, unknown>,
): Promise<{ results: SearchResult[] }> {
  const dataset = await requireDataset(ctx, datasetId);
  const params = parseRowSearch(dataset, body);
  // Compiling first reports a bad filter before any embedding work.
  const filter =
    params.filter === undefined ? undefined : compileFilter(params.filter, sql.raw("r.metadata"));
  const rows = await rankRows(ctx, dataset, { ...params, filter });
  const column = embeddedColumn(dataset);
  return { results: rows.map((row) => toSearchResult(row, params.query, column)) };
}

export interface RankRowsInput {
  query: string;
  topK: number;
  alpha: number;
  /** a condition over `r.metadata` (a compiled filter) */
  filter: SQL | undefined;
}

/** Tuning of the candidate sets; see the functions that use them. */
export const SEARCH_TUNING = {
  /**
   * A filter passed by at most this many rows ranks them all exactly; by more, the HNSW index
   * is searched with the filter (iterative scan). At 100k rows, 1,000 exact distances cost
   * about what the graph walk past 99 rejected rows in 100 does, with recall 1 instead of ~0.94.
   */
  exactFilterRows: 2000,
  /** rows an iterative (filtered) HNSW scan may visit before it gives up */
  maxScanTuples: 50_000,
  /** semantic and keyword candidates of a hybrid search: this many times top_k, at least… */
  hybridCandidateFactor: 3,
  hybridMinCandidates: 40,
  /**
   * A hybrid search draws keyword candidates from the query's rarest terms only, while their
   * rows number at most this many; common terms still count in every candidate's score.
   * (Elasticsearch's cutoff_frequency idea: common terms rank, rare terms select.)
   */
  hybridKeywordRows: 2000,
} as const;

export async function rankRows(
  ctx: ProjectContext,
  dataset: DatasetRecord,
  input: RankRowsInput,
): Promise<ScoredRow[]> {
  if (input.alpha === 0) return queryRows(ctx.db, keywordSql(dataset, input));
  const column = embeddedColumn(dataset);
  // A dataset that embeds nothing has no semantic side: every row's semantic score is 0.
  if (column === null)
    return queryRows(ctx.db, keywordSql(dataset, { ...input, scale: 1 - input.alpha }));
  const [vector] = await embedTexts(ctx, dataset, [input.query]);
  const semantic = new SemanticSearch(dataset, vector as number[], input.filter);
  return queryRows(
    ctx.db,
    input.alpha === 1 ? semantic.rankSql(input.topK) : hybridSql(dataset, semantic, input),
  );
}

/**
 * Vector search over the dataset's HNSW index, and the settings it runs with. A statement
 * that uses it must list `queryVectorCte()` among its CTEs.
 */
export class SemanticSearch {
  readonly expression: SQL;
  /**
   * The query's vector, parsed once per statement: a statement names it 4–6 times, and each
   * parse of a dense 384-d literal cost ~0.8 ms in PGlite (see `vector-transfer.ts`). A scalar
   * subquery is an InitPlan, evaluated once, and HNSW can order by it like by a constant.
   */
  readonly queryVector = sql.raw("(SELECT v FROM quarry_query_vector)");
  readonly #vector: number[];

  constructor(
    readonly dataset: Pick<DatasetRecord, "id" | "dimensions" | "embeddingModel" | "efSearch">,
    vector: number[],
    readonly filter: SQL | undefined,
  ) {
    this.expression = vectorExpression(dataset.dimensions, "r.embedding");
    this.#vector = vector;
  }

  /** `quarry_query_vector(v)`: the query's vector, for `queryVector`. */
  queryVectorCte(): SQL {
    const scaled = scaleVectors([this.#vector]);
    const vector = scaledVectorSql(
      sql`${scaled.integers[0]}`,
      scaled.exponent,
      this.dataset.dimensions,
    );
    return sql`quarry_query_vector AS MATERIALIZED (
      SELECT ${vector}::${sql.raw(vectorType(this.dataset.dimensions))} AS v)`;
  }

  /** `r`'s cosine distance to the query, in [0, 2]; null for a row without an embedding. */
  distance(): SQL {
    return sql`(${this.expression} <=> ${this.queryVector})`;
  }

  /**
   * The `limit` nearest rows `(id, distance)`, in no particular order (callers sort on
   * `distance`). A dataset's rows are either in its HNSW graph (`indexed_vectors`) or in the
   * backlog that waits for it (`vector_backlog`, see `indexVectorBacklog`); each side gives
   * its `limit` nearest and the union holds the overall `limit` nearest. Unfiltered, the graph
   * side is an HNSW scan: the expression and the `dataset_id` predicate are the index's, so
   * the planner can use it; the backlog side is ranked exactly. With a filter it depends on how
   * many rows pass it, which one statement finds out first (`probe`, at most `exactFilterRows`
   * + 1 rows read):
   * - few: all of them are ranked exactly — recall 1, and cheaper than walking the graph past
   *   the many rows a selective filter rejects;
   * - many: pgvector's iterative index scan walks the graph until `limit` rows pass the filter
   *   (or `maxScanTuples` rows were visited), in relaxed order; the backlog's rows that pass
   *   it are ranked exactly.
   */
  candidatesSql(limit: number): SQL {
    const graph = vectorExpression(this.dataset.dimensions, "v.embedding");
    const ofBacklog = sql`FROM vector_backlog b JOIN rows r ON r.id = b.row_id
      WHERE b.dataset_id = ${this.dataset.id} AND r.embedding IS NOT NULL`;
    if (!this.filter) {
      return sql`(${this.graphSql(sql`LIMIT ${limit}::int`)})
      UNION ALL
      (SELECT r.id, ${this.distance()} AS distance ${ofBacklog} ORDER BY 2, 1 LIMIT ${limit}::int)`;
    }
    const cap = SEARCH_TUNING.exactFilterRows;
    const base = sql`FROM rows r WHERE r.dataset_id = ${this.dataset.id} AND r.embedding IS NOT NULL`;
    return sql`WITH probe AS MATERIALIZED (
        SELECT r.id ${base} AND ${this.filter} LIMIT ${cap + 1}::int
      ),
      few AS (SELECT count(*) <= ${cap}::int AS yes FROM probe)
      (SELECT r.id, ${this.distance()} AS distance
       FROM probe p JOIN rows r ON r.id = p.id
       WHERE (SELECT yes FROM few)
       ORDER BY 2, 1 LIMIT ${limit}::int)
      UNION ALL
      (SELECT v.row_id AS id, (${graph} <=> ${this.queryVector}) AS distance
       FROM indexed_vectors v JOIN rows r ON r.id = v.row_id
       WHERE v.dataset_id = ${this.dataset.id} AND ${this.filter} AND NOT (SELECT yes FROM few)
       ORDER BY ${graph} <=> ${this.queryVector} LIMIT ${limit}::int)
      UNION ALL
      (SELECT r.id, ${this.distance()} AS distance ${ofBacklog} AND ${this.filter}
         AND NOT (SELECT yes FROM few)
       ORDER BY 2, 1 LIMIT ${limit}::int)`;
  }

  /**
   * The graph's nearest `(id, distance)` by an HNSW scan, nearest first: the expression and the
   * `dataset_id` predicate are the index's, so the planner can use it. `limit` is the LIMIT
   * clause (`LIMIT n`, or `limit()` to apply the settings in the same statement).
   */
  graphSql(limit: SQL): SQL {
    const graph = vectorExpression(this.dataset.dimensions, "v.embedding");
    return sql`SELECT v.row_id AS id, (${graph} <=> ${this.queryVector}) AS distance
      FROM indexed_vectors v WHERE v.dataset_id = ${this.dataset.id}
      ORDER BY ${graph} <=> ${this.queryVector} ${limit}`;
  }

  /** Pure semantic ranking of the `topK` nearest rows. */
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
        ["hnsw.max_scan_tuples", sql`${String(SEARCH_TUNING.maxScanTuples)}::text`],
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
 * Pure keyword ranking (alpha = 0, or a dataset without embeddings): every row of the dataset
 * containing a query term is scored, so the result is exactly BM25's top `topK`. `scale`
 * multiplies the normalised keyword score (1 − alpha when there is no semantic side).
 */
function keywordSql(
  dataset: Pick<DatasetRecord, "id">,
  input: RankRowsInput & { scale?: number },
): SQL {
  const filter = input.filter ? sql` AND ${input.filter}` : sql``;
  return sql`WITH ${keywordTermsCtes(dataset.id, input.query, "row")}, ${rowTermArraysCte},
  scores AS MATERIALIZED (
    SELECT r.id, ${rowBm25} AS score
    FROM rows r CROSS JOIN row_arr a
    WHERE r.dataset_id = ${dataset.id}
      AND r.fts @@ ${anyTermTsquery(sql`SELECT term FROM row_terms`)}${filter}
  ),
  best AS (SELECT id, score FROM scores ORDER BY score DESC, id LIMIT ${input.topK}::int)
  SELECT r.id, r.data, r.metadata,
         ${input.scale ?? 1}::float8 * b.score / (SELECT max(score) FROM scores) AS confidence
  FROM best b JOIN rows r ON r.id = b.id
  ORDER BY b.score DESC, b.id`;
}

/**
 * Hybrid ranking (0 < alpha < 1). Candidates: the `n` semantic nearest rows (HNSW) and the `n`
 * best keyword rows among those containing the query's rare terms (at most `hybridKeywordRows`
 * rows are scored; a query of only common terms gets its keyword ranking from the semantic
 * candidates). Each candidate gets both scores exactly, the keyword score normalised by the
 * best among them; the top `topK` by confidence win.
 */
function hybridSql(dataset: DatasetRecord, semantic: SemanticSearch, input: RankRowsInput): SQL {
  const n = Math.max(
    input.topK * SEARCH_TUNING.hybridCandidateFactor,
    SEARCH_TUNING.hybridMinCandidates,
  );
  const filter = input.filter ? sql` AND ${input.filter}` : sql``;
  const alpha = sql`${input.alpha}::float8`;
  return sql`WITH ${semantic.queryVectorCte()},
  ${keywordTermsCtes(dataset.id, input.query, "row")}, ${rowTermArraysCte},
  rare_terms AS (
    SELECT term FROM (
      SELECT term, sum(frequency) OVER (ORDER BY frequency, term) AS running FROM row_terms
    ) AS x
    WHERE running <= ${SEARCH_TUNING.hybridKeywordRows}::int
  ),
  semantic AS MATERIALIZED (${semantic.candidatesSql(n)}),
  keyword AS MATERIALIZED (
    SELECT r.id, ${rowBm25} AS score
    FROM rows r CROSS JOIN row_arr a
    WHERE r.dataset_id = ${dataset.id}
      AND r.fts @@ ${anyTermTsquery(sql`SELECT term FROM rare_terms`)}${filter}
    ORDER BY score DESC, r.id
    LIMIT ${n}::int
  ),
  candidates AS MATERIALIZED (
    SELECT s.id, s.distance, ${rowBm25} AS score
    FROM semantic s JOIN rows r ON r.id = s.id CROSS JOIN row_arr a
    UNION ALL
    SELECT k.id, ${semantic.distance()} AS distance, k.score
    FROM keyword k JOIN rows r ON r.id = k.id
    WHERE k.id NOT IN (SELECT id FROM semantic)
  ),
  fused AS (
    SELECT c.id, ${fusedConfidence(alpha)} AS confidence
    FROM candidates c
  )
  SELECT r.id, r.data, r.metadata, f.confidence
  FROM fused f JOIN rows r ON r.id = f.id
  ORDER BY f.confidence DESC, f.id
  ${semantic.limit(input.topK, n)}`;
}

/**
 * The confidence (docs/api.md#alpha) of a candidate `c(distance, score)` in a `candidates` CTE:
 * alpha · semantic + (1 − alpha) · keyword, where semantic is the cosine similarity clamped to
 * [0, 1] (0 without an embedding) and keyword the BM25 score over the best candidate's.
 */
export function fusedConfidence(alpha: SQL): SQL {
  return sql`${alpha} * greatest(0, 1 - coalesce(c.distance, 1))
    + (1 - ${alpha}) * coalesce(c.score / nullif((SELECT max(score) FROM candidates), 0), 0)`;
}
