import { type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import {
  anyTermTsquery,
  keywordMatch,
  keywordTermsCtes,
  rowBm25,
  rowTermArraysCte,
} from "./keyword-sql.ts";

export interface KeywordRankingInput {
  query: string;
  topK: number;
  /** a condition over `r.metadata` (a compiled filter) */
  filter: SQL | undefined;
  /** multiplies the normalised keyword score (1 − alpha when there is no semantic side); 1 */
  scale?: number;
}

/**
 * Pure keyword ranking (alpha = 0, or a dataset without embeddings): every row of the dataset
 * containing a query term is scored, so the result is exactly BM25's top `topK`, each score
 * over the best one's.
 */
export function keywordRankingSql(
  dataset: Pick<DatasetRecord, "id">,
  input: KeywordRankingInput,
): SQL {
  const filter = input.filter ? sql` AND ${input.filter}` : sql``;
  return sql`WITH ${keywordTermsCtes(dataset.id, input.query, "row")}, ${rowTermArraysCte},
  scores AS MATERIALIZED (
    SELECT r.id, ${rowBm25} AS score
    FROM rows r CROSS JOIN row_arr a
    WHERE ${keywordMatch(dataset.id, anyTermTsquery(sql`SELECT term FROM row_terms`))}${filter}
  ),
  best AS (SELECT id, score FROM scores ORDER BY score DESC, id LIMIT ${input.topK}::int)
  SELECT r.id, r.data, r.metadata,
         ${input.scale ?? 1}::float8 * b.score / (SELECT max(score) FROM scores) AS confidence
  FROM best b JOIN rows r ON r.id = b.id
  ORDER BY b.score DESC, b.id`;
}
