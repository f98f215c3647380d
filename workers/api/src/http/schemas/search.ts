import { z } from "@hono/zod-openapi";

/**
 * Search bodies and results (E1–E3 in docs/api.md), for the OpenAPI document and first-line
 * validation; the domain validates again (`packages/core/src/search/search-params.ts`).
 */
const Query = z.string().min(1).max(10_000).openapi({
  description: "The search text",
  example: "how do telescopes find exoplanets",
});
const TopK = (description: string) =>
  z.number().int().min(1).max(100).optional().openapi({ description, example: 3 });

export const SearchBody = z
  .object({
    query: Query,
    top_k: TopK("Number of closest matches; default 3, at most 100"),
    filter: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({
        description:
          "Metadata filter in Pinecone's language: $eq $ne $gt $gte $lt $lte $in $nin $exists $and $or $not",
        example: { year: { $gte: 2020 }, tags: "physics" },
      }),
    alpha: z.number().min(0).max(1).optional().openapi({
      description:
        "Weight of the semantic score against the keyword (BM25) score: 1 pure semantic, 0 pure keyword. Default 0.5 on hybrid datasets, 1 on standard ones.",
      example: 0.5,
    }),
  })
  .strict()
  .openapi("Search");

export const SearchResultSchema = z
  .object({
    embedding: z.string().openapi({ description: "The embedded text of the row" }),
    data: z.record(z.string(), z.string()),
    confidence: z.number().openapi({
      description:
        "alpha · cosine similarity (clamped to [0, 1]) + (1 − alpha) · BM25 relative to the best keyword match; in [0, 1], results sorted by it",
    }),
    query: z.string(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi("SearchResult");

export const SearchResponse = z
  .object({ results: z.array(SearchResultSchema) })
  .openapi("SearchResults");

export const DocumentSearchBody = z
  .object({ query: Query, top_k: TopK("Number of documents; default 3, at most 100") })
  .strict()
  .openapi("SearchDocuments");

export const DocumentResultSchema = z
  .object({
    document_id: z.string(),
    dataset_id: z.string(),
    content: z.string().openapi({
      description: "The document's text for inline and URL documents; empty otherwise",
    }),
    filename: z.string(),
    url: z.string(),
    similarity: z.number().openapi({
      description: "BM25 score of the document's text (Lucene's formula, k1 1.2, b 0.75)",
    }),
  })
  .openapi("DocumentResult");

export const DocumentSearchResponse = z
  .object({ results: z.array(DocumentResultSchema) })
  .openapi("DocumentResults");

export const DocumentFilteredSearchBody = z
  .object({
    query: Query,
    top_k_documents: TopK("Documents to find by keywords; default 3, at most 100"),
    top_k_rows: TopK("Rows to return in total (not per document); default 3, at most 100"),
  })
  .strict()
  .openapi("DocumentFilteredSearch");

export const DocumentFilteredSearchResponse = z
  .object({
    document_results: z.array(DocumentResultSchema),
    results: z.array(SearchResultSchema),
  })
  .openapi("DocumentFilteredSearchResults");
