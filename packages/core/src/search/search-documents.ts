import { type SQL, sql } from "drizzle-orm";
import { requireDataset } from "../datasets/require-dataset.ts";
import type { ProjectContext } from "../shared/context.ts";
import { keywordTermsCtes, saturatedTf } from "./keyword-sql.ts";
import { queryRows } from "./query-rows.ts";
import { type QueryText, queryText } from "./query-text.ts";
import { DEFAULT_TOP_K, type DocumentSearchInput } from "./search-input.ts";
import { type DocumentResult, type ScoredDocument, toDocumentResult } from "./search-results.ts";

/**
 * E3: the dataset's documents ranked by BM25 over their text. A document's text is all of its
 * rows: term frequencies and lengths are summed over them (`keyword_postings`,
 * `keyword_documents`), so documents of any length rank without a tsvector of their own.
 */
export async function searchDocuments(
  ctx: ProjectContext,
  datasetId: string,
  input: DocumentSearchInput,
): Promise<{ results: DocumentResult[] }> {
  const dataset = await requireDataset(ctx, datasetId);
  const topK = input.top_k ?? DEFAULT_TOP_K;
  const found = await queryRows<ScoredDocument>(
    ctx.db,
    documentSearchSql(dataset.id, input.query, topK),
  );
  return { results: found.map((document) => toDocumentResult(document, dataset.id)) };
}

function documentSearchSql(datasetId: string, query: string, topK: number): SQL {
  return sql`WITH ${documentScoresCtes(datasetId, query, topK)}
    SELECT s.document_id, s.score, d.filename, d.url, d.content
    FROM doc_scores s JOIN documents d ON d.dataset_id = ${datasetId} AND d.id = s.document_id
    ORDER BY s.score DESC, s.document_id`;
}

/**
 * The statement E3 sends, as Postgres receives it: for callers that run it over a driver of
 * their own, such as the search bench's raw-SQL baseline, so they measure what the service runs.
 */
export function documentSearchQuery(datasetId: string, query: string, topK: number): QueryText {
  return queryText(documentSearchSql(datasetId, query, topK));
}

/**
 * CTEs ending in `doc_scores(document_id, score)`: the `limit` best documents for the query,
 * best first (ties by id). Every document containing a query term is scored: the postings of
 * a term hold one entry per document, not per row.
 *
 * The postings are read term by term (a lateral subquery that `OFFSET 0` keeps from being
 * flattened into the join), whatever the planner estimates: on PGlite, which has no statistics
 * until its maintenance runs, a join it was free to reorder started from the dataset's
 * documents and read every posting of each (`pnpm bench search` at 3k rows: E3 29.7 ms
 * against 3.4, E1 34 against 7 ms).
 */
export function documentScoresCtes(datasetId: string, query: string, limit: number): SQL {
  // `keyword_postings`, `keyword_documents`: kept by triggers on `rows` (packages/db/README.md)
  return sql`${keywordTermsCtes(datasetId, query, "document")},
  doc_scores AS MATERIALIZED (
    SELECT p.document_id,
           sum(w.idf * ${saturatedTf(sql`p.frequency`, sql`d.length`, sql`s.avgdl`)}) AS score
    FROM doc_terms w
    CROSS JOIN LATERAL (
      SELECT p.document_id, p.frequency FROM keyword_postings p
      WHERE p.dataset_id = ${datasetId} AND p.term = w.term AND p.frequency > 0
      OFFSET 0
    ) p
    JOIN keyword_documents d ON d.dataset_id = ${datasetId} AND d.document_id = p.document_id
    CROSS JOIN doc_stats s
    GROUP BY p.document_id
    ORDER BY score DESC, p.document_id
    LIMIT ${limit}::int
  )`;
}
