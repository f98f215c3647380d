import { rows, type SearchBlock } from "@quarry/db";
import { and, eq, inArray } from "drizzle-orm";
import { RowSearchInput } from "../search/search-input.ts";
import type { SearchResult } from "../search/search-results.ts";
import { searchRows } from "../search/search-rows.ts";
import type { ProjectContext } from "../shared/context.ts";
import { BadRequestError } from "../shared/errors.ts";
import { parseInput } from "../shared/parse-input.ts";
import { renderTemplate } from "../templates/template.ts";

/** A Search result inside a completion response (docs/api.md#search-result). */
export interface CompletionSearchResult extends SearchResult {
  image_paths: Record<string, string> | null;
  /** the template variable the result was rendered into */
  variable: string;
  /** when the row was retrieved for this completion (ISO 8601) */
  last_accessed: string;
}

export interface SearchContext {
  /** variable → the text rendered into it */
  filled: Record<string, string>;
  results: CompletionSearchResult[];
}

/** Between two results rendered into one variable. */
export const RESULT_SEPARATOR = "\n\n";

/**
 * Runs an endpoint's search blocks (E2 with the block's `top_k`, `filter` and `alpha`), each
 * `query` rendered from the caller's values first. A variable receives the embedded text of
 * its results, best first, separated by a blank line. Blocks run concurrently. A block the
 * search rejects (say, a query that renders empty) is a 400 naming the block.
 */
export async function runSearchBlocks(
  ctx: ProjectContext,
  blocks: readonly SearchBlock[],
  values: Record<string, string>,
): Promise<SearchContext> {
  const found = await Promise.all(blocks.map((block, i) => runBlock(ctx, block, i, values)));
  const filled: Record<string, string> = {};
  const results: CompletionSearchResult[] = [];
  const accessed = new Date().toISOString();
  blocks.forEach((block, i) => {
    const blockResults = found[i] ?? [];
    filled[block.variable] = blockResults.map((r) => r.embedding).join(RESULT_SEPARATOR);
    for (const result of blockResults) {
      results.push({
        ...result,
        image_paths: null,
        variable: block.variable,
        last_accessed: accessed,
      });
    }
  });
  return { filled, results };
}

async function runBlock(
  ctx: ProjectContext,
  block: SearchBlock,
  index: number,
  values: Record<string, string>,
): Promise<SearchResult[]> {
  const body: Record<string, unknown> = { query: renderTemplate(block.query, values) };
  if (block.top_k !== undefined) body.top_k = block.top_k;
  if (block.filter !== undefined) body.filter = block.filter;
  if (block.alpha !== undefined) body.alpha = block.alpha;
  try {
    // The query is rendered from the caller's values, so it is checked as E2 checks a query.
    return (await searchRows(ctx, block.dataset_id, parseInput(RowSearchInput, body))).results;
  } catch (error) {
    if (error instanceof BadRequestError) {
      throw new BadRequestError(error.message, `search[${index}]`);
    }
    throw error;
  }
}

/**
 * Fills `image_paths` from the rows found (search results do not carry it). Off the
 * critical path: callers run it while the model answers.
 */
export async function withImagePaths(
  ctx: ProjectContext,
  results: CompletionSearchResult[],
): Promise<CompletionSearchResult[]> {
  const ids = results.map((r) => Number(r.metadata.rowId)).filter(Number.isSafeInteger);
  if (ids.length === 0) return results;
  const found = await ctx.db
    .select({ id: rows.id, imagePaths: rows.imagePaths })
    .from(rows)
    .where(and(eq(rows.projectId, ctx.projectId), inArray(rows.id, ids)));
  const paths = new Map(found.map((r) => [r.id, r.imagePaths ?? null]));
  return results.map((r) => ({ ...r, image_paths: paths.get(Number(r.metadata.rowId)) ?? null }));
}
