import { type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import {
  anyTermTsquery,
  keywordMatch,
  keywordTermsCtes,
  rowBm25,
  rowTermArraysCte,
} from "./keyword-sql.ts";
import type { SemanticSearch } from "./semantic-ranking.ts";

/** The candidate sets of a hybrid search; see `hybridRankingSql`. */
export const HYBRID_TUNING = {
  /** semantic and keyword candidates: this many times top_k, at least `minCandidates` */
  candidateFactor: 3,
  minCandidates: 40,
  /**
   * Keyword candidates come from the query's rarest terms only, while their rows number at
   * most this many; common terms still count in every candidate's score.
   * (Elasticsearch's cutoff_frequency idea: common terms rank, rare terms select.)
   */
  keywordRows: 2000,
} as const;

export interface HybridRankingInput {
  query: string;
  topK: number;
  /** the semantic score's weight, in (0, 1) */
  alpha: number;
  /** a condition over `r.metadata` (a compiled filter) */
  filter: SQL | undefined;
}

/**
 * Hybrid ranking (0 < alpha < 1). Candidates: the `n` semantic nearest rows (HNSW) and the `n`
 * best keyword rows among those containing the query's rare terms (at most `keywordRows` rows
 * are scored; a query of only common terms gets its keyword ranking from the semantic
 * candidates). Each candidate gets both scores exactly, the keyword score normalised by the
 * best among them; the top `topK` by confidence win.
 */
export function hybridRankingSql(
  dataset: Pick<DatasetRecord, "id">,
  semantic: SemanticSearch,
  input: HybridRankingInput,
): SQL {
  const n = Math.max(input.topK * HYBRID_TUNING.candidateFactor, HYBRID_TUNING.minCandidates);
  const filter = input.filter ? sql` AND ${input.filter}` : sql``;
  const alpha = sql`${input.alpha}::float8`;
  return sql`WITH ${semantic.queryVectorCte()},
  ${keywordTermsCtes(dataset.id, input.query, "row")}, ${rowTermArraysCte},
  rare_terms AS (
    SELECT term FROM (
      SELECT term, sum(frequency) OVER (ORDER BY frequency, term) AS running FROM row_terms
    ) AS x
    WHERE running <= ${HYBRID_TUNING.keywordRows}::int
  ),
  semantic AS MATERIALIZED (${semantic.candidatesSql(n)}),
  keyword AS MATERIALIZED (
    SELECT r.id, ${rowBm25} AS score
    FROM rows r CROSS JOIN row_arr a
    WHERE ${keywordMatch(dataset.id, anyTermTsquery(sql`SELECT term FROM rare_terms`))}${filter}
    ORDER BY score DESC, r.id
    LIMIT ${n}::int
  ),
  candidates AS MATERIALIZED (
    SELECT s.id, s.distance, ${rowBm25} AS score
    FROM semantic s JOIN rows r ON r.id = s.id CROSS JOIN row_arr a
    UNION ALL
    SELECT k.id, ${semantic.storedDistance(sql`k.id`)} AS distance, k.score
    FROM keyword k
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
