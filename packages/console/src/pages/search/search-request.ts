import { API_ORIGIN } from "../../api/client.ts";
import type { components } from "../../api/schema";

type Schemas = components["schemas"];

/** The three searches (docs/api.md): E2 rows (semantic/keyword mix), E3 documents, E1 both. */
export type SearchMode = "rows" | "documents" | "document-filtered";

export const MODES: { value: SearchMode; label: string; path: string; operation: string }[] = [
  { value: "rows", label: "Rows (E2)", path: "search", operation: "E2" },
  { value: "documents", label: "Documents (E3)", path: "search-documents", operation: "E3" },
  {
    value: "document-filtered",
    label: "Rows in matching documents (E1)",
    path: "document-filtered-search",
    operation: "E1",
  },
];

export interface SearchForm {
  mode: SearchMode;
  query: string;
  topK: number;
  alpha: number;
  /** JSON text; blank means no filter */
  filter: string;
  topKDocuments: number;
}

/** A request of one mode with that mode's body. */
export type SearchRequest =
  | { mode: "rows"; body: Schemas["Search"] }
  | { mode: "documents"; body: Schemas["SearchDocuments"] }
  | { mode: "document-filtered"; body: Schemas["DocumentFilteredSearch"] };

export type SearchReply =
  | { mode: "rows"; results: Schemas["SearchResult"][] }
  | { mode: "documents"; documents: Schemas["DocumentResult"][] }
  | {
      mode: "document-filtered";
      documents: Schemas["DocumentResult"][];
      results: Schemas["SearchResult"][];
    };

/** The filter as the API takes it, or the JSON parse problem (shown beside the field). */
export function parseFilter(text: string): { filter?: Record<string, unknown>; problem?: string } {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { problem: 'The filter must be a JSON object, like {"year": {"$gte": 2020}}.' };
    return { filter: value as Record<string, unknown> };
  } catch (error) {
    return { problem: `The filter is not JSON: ${(error as Error).message}` };
  }
}

/** The request for the form's mode; `filter` is already parsed. */
export function searchRequest(
  form: SearchForm,
  filter: Record<string, unknown> | undefined,
): SearchRequest {
  const query = form.query;
  switch (form.mode) {
    case "rows":
      return {
        mode: "rows",
        body: { query, top_k: form.topK, alpha: form.alpha, ...(filter ? { filter } : {}) },
      };
    case "documents":
      return { mode: "documents", body: { query, top_k: form.topK } };
    case "document-filtered":
      return {
        mode: "document-filtered",
        body: { query, top_k_documents: form.topKDocuments, top_k_rows: form.topK },
      };
  }
}

export function searchPath(datasetId: string, mode: SearchMode) {
  const path = MODES.find((m) => m.value === mode)!.path;
  return `/api/datasets/${encodeURIComponent(datasetId)}/${path}`;
}

/**
 * The same request as a shell command. The key is left as `$QUARRY_API_KEY` so a pasted
 * command never leaks it into a chat or a ticket.
 */
export function curlCommand(datasetId: string, { mode, body }: SearchRequest): string {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  return [
    `curl -sS -X POST ${quote(`${API_ORIGIN}${searchPath(datasetId, mode)}`)}`,
    `  -H "Authorization: Bearer $QUARRY_API_KEY"`,
    `  -H 'Content-Type: application/json'`,
    `  -d ${quote(JSON.stringify(body))}`,
  ].join(" \\\n");
}
