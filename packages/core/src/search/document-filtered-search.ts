import { sql } from "drizzle-orm";
import { requireDataset } from "../datasets/require-dataset.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { embeddedColumn } from "../rows/row-input.ts";
import type { ProjectContext } from "../shared/context.ts";
import { fusedConfidence } from "./hybrid-ranking.ts";
import { keywordTermsCtes, rowBm25, rowTermArraysCte } from "./keyword-sql.ts";
import { queryRows } from "./query-rows.ts";
import { documentScoresCtes } from "./search-documents.ts";
import { DEFAULT_TOP_K, type DocumentFilteredSearchInput, defaultAlpha } from "./search-input.ts";
import {
  type DocumentFilteredSearchResult,
  type ScoredDocument,
  type ScoredRow,
  toDocumentResult,
  toSearchResult,
} from "./search-results.ts";
import { SemanticSearch } from "./semantic-ranking.ts";

/**
 * E1: E3's `top_k_documents` documents, then E2 over their rows
 * (docs/api.md#e1-document-filtered-search: the dataset's default alpha, a `documentId $in`
 * restriction, `top_k_rows` rows in total), in one statement. The rows of a few documents are few,
 * so both of their scores are computed exactly for all of them rather than through the vector
 * index.
 */
export async function documentFilteredSearch(
  ctx: ProjectContext,
  datasetId: string,
  input: DocumentFilteredSearchInput,
): Promise<DocumentFilteredSearchResult> {
  const dataset = await requireDataset(ctx, datasetId);
  const params = {
    query: input.query,
    topKDocuments: input.top_k_documents ?? DEFAULT_TOP_K,
    topKRows: input.top_k_rows ?? DEFAULT_TOP_K,
  };
  const column = embeddedColumn(dataset);
  const alpha = column === null ? 0 : defaultAlpha(dataset);
  const semantic =
    alpha > 0
      ? new SemanticSearch(
          dataset,
          (await embedTexts(ctx, dataset, [params.query]))[0] as number[],
          undefined,
        )
      : undefined;
  const keyword = alpha < 1;
  const weight = sql`${alpha}::float8`;

  const [found] = await queryRows<{ documents: ScoredDocument[]; rows: ScoredRow[] }>(
    ctx.db,
    sql`WITH ${semantic ? sql`${semantic.queryVectorCte()},` : sql``}
    ${documentScoresCtes(dataset.id, params.query, params.topKDocuments)},
    ${keyword ? sql`${keywordTermsCtes(dataset.id, params.query, "row")}, ${rowTermArraysCte},` : sql``}
    candidates AS MATERIALIZED (
      SELECT r.id,
             ${semantic ? semantic.storedDistance(sql`r.id`) : sql`NULL::float8`} AS distance,
             ${keyword ? rowBm25 : sql`0::float8`} AS score
      FROM rows r${keyword ? sql` CROSS JOIN row_arr a` : sql``}
      WHERE r.dataset_id = ${dataset.id}
        AND r.document_id IN (SELECT document_id FROM doc_scores)
    ),
    fused AS (
      SELECT c.id, ${fusedConfidence(weight)} AS confidence
      FROM candidates c
      ORDER BY confidence DESC, c.id
      LIMIT ${params.topKRows}::int
    )
    SELECT
      (SELECT coalesce(json_agg(json_build_object(
                'document_id', s.document_id, 'score', s.score, 'filename', d.filename,
                'url', d.url, 'content', d.content) ORDER BY s.score DESC, s.document_id), '[]')
       FROM doc_scores s JOIN documents d ON d.dataset_id = ${dataset.id} AND d.id = s.document_id
      ) AS documents,
      (SELECT coalesce(json_agg(json_build_object(
                'id', r.id, 'data', r.data, 'metadata', r.metadata, 'confidence', f.confidence)
                ORDER BY f.confidence DESC, f.id), '[]')
       FROM fused f JOIN rows r ON r.id = f.id
      ) AS rows`,
  );
  return {
    document_results: (found?.documents ?? []).map((d) => toDocumentResult(d, dataset.id)),
    results: (found?.rows ?? []).map((row) => toSearchResult(row, params.query, column)),
  };
}
