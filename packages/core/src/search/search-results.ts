/** A Search result: one row found by E2 (and by E1's row search); docs/api.md#search-result. */
export interface SearchResult {
  /** the embedded text of the row (its embedded column; all its data when it has none) */
  embedding: string;
  data: Record<string, string>;
  /** The fused score in [0, 1], higher is better; results are sorted by it (docs/api.md#alpha) */
  confidence: number;
  query: string;
  metadata: Record<string, unknown>;
}

/** A Document result: one document found by E3 (and by E1); docs/api.md#document-result. */
export interface DocumentResult {
  document_id: string;
  dataset_id: string;
  /** the document's text when the service holds it (inline and URL documents), else "" */
  content: string;
  filename: string;
  url: string;
  /** the document's BM25 score for the query (Lucene's formula); higher is better */
  similarity: number;
}

export interface DocumentFilteredSearchResult {
  document_results: DocumentResult[];
  results: SearchResult[];
}

/** What the search queries select for a row: enough to build a Search result. */
export interface ScoredRow {
  id: number | string;
  data: Record<string, string>;
  metadata: Record<string, unknown>;
  confidence: number;
}

/** What the search queries select for a document. */
export interface ScoredDocument {
  document_id: string;
  filename: string | null;
  url: string | null;
  content: string | null;
  score: number;
}

export function toSearchResult(
  row: ScoredRow,
  query: string,
  embeddedColumn: string | null,
): SearchResult {
  const text = embeddedColumn === null ? undefined : row.data[embeddedColumn];
  return {
    embedding: text ?? Object.values(row.data).join("\n"),
    data: row.data,
    confidence: Number(row.confidence),
    query,
    metadata: row.metadata,
  };
}

export function toDocumentResult(document: ScoredDocument, datasetId: string): DocumentResult {
  return {
    document_id: document.document_id,
    dataset_id: datasetId,
    content: document.content ?? "",
    filename: document.filename ?? "",
    url: document.url ?? "",
    similarity: Number(document.score),
  };
}
