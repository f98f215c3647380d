import { type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { requireDataset } from "../datasets/require-dataset.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import { compileFilter } from "../filter/compile-filter.ts";
import { embeddedColumn } from "../rows/row-input.ts";
import type { ProjectContext } from "../shared/context.ts";
import { hybridRankingSql } from "./hybrid-ranking.ts";
import { keywordRankingSql } from "./keyword-ranking.ts";
import { queryRows } from "./query-rows.ts";
import { DEFAULT_TOP_K, defaultAlpha, type RowSearchInput } from "./search-input.ts";
import { type ScoredRow, type SearchResult, toSearchResult } from "./search-results.ts";
import { SemanticSearch } from "./semantic-ranking.ts";

/**
 * E2: the dataset's rows ranked by `confidence = alpha · semantic + (1 − alpha) · keyword`
 * (docs/api.md#alpha), where
 * - semantic is the cosine similarity of the row's embedding to the query's, clamped to [0, 1]
 *   (rows stored without an embedding have 0);
 * - keyword is the row's BM25 score over the best BM25 score among the candidates, in [0, 1]
 *   (the "theoretical-min / observed-max" normalisation that fuses well with cosine).
 * alpha = 1 is a pure vector search through the dataset's HNSW index; alpha = 0 a pure
 * keyword search over every row containing a query term. In between, the candidates are the
 * best semantic matches and the best keyword matches (see `hybridRankingSql`), and both
 * scores are computed exactly for each of them.
 */
export async function searchRows(
  ctx: ProjectContext,
  datasetId: string,
  input: RowSearchInput,
): Promise<{ results: SearchResult[] }> {
  const dataset = await requireDataset(ctx, datasetId);
  // Compiling first reports a bad filter before any embedding work.
  const filter =
    input.filter === undefined ? undefined : compileFilter(input.filter, sql.raw("r.metadata"));
  const rows = await rankRows(ctx, dataset, {
    query: input.query,
    topK: input.top_k ?? DEFAULT_TOP_K,
    alpha: input.alpha ?? defaultAlpha(dataset),
    filter,
  });
  const column = embeddedColumn(dataset);
  return { results: rows.map((row) => toSearchResult(row, input.query, column)) };
}

export interface RankRowsInput {
  query: string;
  topK: number;
  alpha: number;
  /** a condition over `r.metadata` (a compiled filter) */
  filter: SQL | undefined;
}

/** The ranking `alpha` calls for: keyword-ranking.ts, semantic-ranking.ts or hybrid-ranking.ts. */
export async function rankRows(
  ctx: ProjectContext,
  dataset: DatasetRecord,
  input: RankRowsInput,
): Promise<ScoredRow[]> {
  if (input.alpha === 0) return queryRows(ctx.db, keywordRankingSql(dataset, input));
  const column = embeddedColumn(dataset);
  // A dataset that embeds nothing has no semantic side: every row's semantic score is 0.
  if (column === null)
    return queryRows(ctx.db, keywordRankingSql(dataset, { ...input, scale: 1 - input.alpha }));
  const [vector] = (await embedTexts(ctx, dataset, [input.query])) as [number[]];
  // The graph's own queries: what its `ef_search` is measured on (query-samples.ts).
  ctx.querySamples?.offer(dataset, vector);
  const semantic = new SemanticSearch(dataset, vector, input.filter);
  return queryRows(
    ctx.db,
    input.alpha === 1 ? semantic.rankSql(input.topK) : hybridRankingSql(dataset, semantic, input),
  );
}
