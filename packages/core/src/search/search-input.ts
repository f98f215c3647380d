import { z } from "zod";
import type { DatasetRecord } from "../datasets/dataset-view.ts";

/** Default and maximum of `top_k`, `top_k_documents` and `top_k_rows` (docs/api.md#limits). */
export const DEFAULT_TOP_K = 3;
export const MAX_TOP_K = 100;
/**
 * A query is embedded and analysed whole; this bounds the work one request can ask for
 * (10,000 characters is several pages of text, far beyond any search box).
 */
export const MAX_QUERY_CHARS = 10_000;

/**
 * docs/api.md#alpha: alpha is in [0, 1], 1 pure semantic and 0 pure keyword; it defaults to 0.5 on
 * hybrid datasets and 1 on standard ones.
 */
export function defaultAlpha(dataset: Pick<DatasetRecord, "kind">): number {
  return dataset.kind === "hybrid" ? 0.5 : 1;
}

// Factories, not shared instances: the edge documents each field where it appears.

/** The search text: not blank, at most `MAX_QUERY_CHARS` characters. */
export const searchQuery = () =>
  z
    .string({ error: "is required: a string" })
    .min(1, { error: "must not be empty" })
    .max(MAX_QUERY_CHARS, { error: `is longer than ${MAX_QUERY_CHARS} characters` })
    .refine((query) => query === "" || query.trim() !== "", { error: "must not be empty" });

/** A number of results; `DEFAULT_TOP_K` when left out. */
export const topK = () => {
  const error = `must be an integer from 1 to ${MAX_TOP_K}`;
  return z.number({ error }).int({ error }).min(1, { error }).max(MAX_TOP_K, { error }).optional();
};

/** Weight of the semantic score against the keyword score; the dataset's default when left out. */
export const searchAlpha = () => {
  const error = "must be a number from 0 (keyword) to 1 (semantic)";
  return z.number({ error }).min(0, { error }).max(1, { error }).optional();
};

/** E2's body. `filter` is compiled (and its grammar checked) with the query. */
export const RowSearchInput = z
  .object({
    query: searchQuery(),
    top_k: topK(),
    filter: z.record(z.string(), z.unknown(), { error: "must be an object" }).optional(),
    alpha: searchAlpha(),
  })
  .strict();
export type RowSearchInput = z.output<typeof RowSearchInput>;

/** E3's body. */
export const DocumentSearchInput = z.object({ query: searchQuery(), top_k: topK() }).strict();
export type DocumentSearchInput = z.output<typeof DocumentSearchInput>;

/** E1's body: E3's `top_k_documents` documents, then E2's `top_k_rows` rows over them. */
export const DocumentFilteredSearchInput = z
  .object({ query: searchQuery(), top_k_documents: topK(), top_k_rows: topK() })
  .strict();
export type DocumentFilteredSearchInput = z.output<typeof DocumentFilteredSearchInput>;
