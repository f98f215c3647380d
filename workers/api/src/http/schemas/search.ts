import { z } from "@hono/zod-openapi";
import { DocumentFilteredSearchInput, DocumentSearchInput, RowSearchInput } from "@quarry/core";
import { documented } from "../openapi.ts";

/**
 * Search bodies and results (E1–E3 in docs/api.md). The bodies are core's
 * (`packages/core/src/search/search-input.ts`); this file documents them.
 */
const query = { description: "The search text", example: "how do telescopes find exoplanets" };
const topK = (description: string) => ({ description, example: 3 });

documented(RowSearchInput.shape.query, query);
documented(RowSearchInput.shape.top_k, topK("Number of closest matches; default 3, at most 100"));
documented(RowSearchInput.shape.filter, {
  description:
    "Metadata filter in Pinecone's language: $eq $ne $gt $gte $lt $lte $in $nin $exists $and $or $not",
  example: { year: { $gte: 2020 }, tags: "physics" },
});
documented(RowSearchInput.shape.alpha, {
  description:
    "Weight of the semantic score against the keyword (BM25) score: 1 pure semantic, 0 pure keyword. Default 0.5 on hybrid datasets, 1 on standard ones.",
  example: 0.5,
});
export const SearchBody = RowSearchInput.openapi("Search");

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

documented(DocumentSearchInput.shape.query, query);
documented(DocumentSearchInput.shape.top_k, topK("Number of documents; default 3, at most 100"));
export const DocumentSearchBody = DocumentSearchInput.openapi("SearchDocuments");

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

const filtered = DocumentFilteredSearchInput.shape;
documented(filtered.query, query);
documented(filtered.top_k_documents, topK("Documents to find by keywords; default 3, at most 100"));
documented(
  filtered.top_k_rows,
  topK("Rows to return in total (not per document); default 3, at most 100"),
);
export const DocumentFilteredSearchBody =
  DocumentFilteredSearchInput.openapi("DocumentFilteredSearch");

export const DocumentFilteredSearchResponse = z
  .object({
    document_results: z.array(DocumentResultSchema),
    results: z.array(SearchResultSchema),
  })
  .openapi("DocumentFilteredSearchResults");
