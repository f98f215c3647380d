import type { HttpClient, Reply } from "./http.ts";

/**
 * The Quarry API as a benchmark calls it, with one project key. Shapes are docs/api.md's and
 * `workers/api/src/http/schemas/*.ts`; only the fields benchmarks read are typed.
 */
export interface Dataset {
  id: string;
  name: string;
  kind: "standard" | "hybrid";
  embedding_model: string;
  dimensions: number;
  /**
   * on GET of one dataset: rows not yet in its HNSW graph, and the HNSW list size its searches
   * use (measured at `measured_rows` graph vectors with `recall_at_10`; both null until then)
   */
  vector_index?: {
    pending_rows: number;
    /** `valid` once the graph serves searches; `building` while it is rebuilt in one pass */
    graph: "valid" | "building" | "invalid" | "missing";
    rebuilding: boolean;
    ef_search: number;
    recall_at_10: number | null;
    measured_rows: number | null;
    /** the queries it was measured on: the dataset's own searches, or phrases of its texts */
    measured_on: "searches" | "stored_texts" | null;
    /** how many queries that measurement ranked */
    measured_queries: number | null;
  };
}

export interface RowInput {
  data: Record<string, string>;
  metadata?: Record<string, string | number | boolean | string[]>;
}

export interface Row {
  id: number;
  dataset_id: string;
  document_id: string;
  data: Record<string, string>;
  metadata: Record<string, unknown>;
  embedding_vector_ids: Record<string, string>;
}

export interface RowsWritten {
  document_id: string;
  rows: Row[];
}

export interface ListParams {
  offset: number;
  page_size: number;
  /** a row id the page starts after */
  after?: number;
  filter?: Record<string, unknown>;
}

export interface QuarryApi {
  createDataset(body: {
    name: string;
    kind?: "standard" | "hybrid";
    embedding_model?: string;
  }): Promise<Dataset>;
  getDataset(id: string): Promise<Reply<Dataset>>;
  /** E11 */
  upsertRows(
    datasetId: string,
    body: { document_id?: string; rows: RowInput[] },
  ): Promise<Reply<RowsWritten>>;
  /** E13 */
  addRows(datasetId: string, documentId: string, rows: RowInput[]): Promise<Reply<RowsWritten>>;
  /** deletes a document and its rows (204) */
  deleteDocument(datasetId: string, documentId: string): Promise<Reply<undefined>>;
  /** E6, with its parameters in the query string (`"query"`) or as a JSON body on GET (`"body"`) */
  listRows(datasetId: string, params: ListParams, form?: "query" | "body"): Promise<Reply<Row[]>>;
}

export function createQuarryApi(http: HttpClient, apiKey: string): QuarryApi {
  const token = apiKey;
  const datasetPath = (id: string) => `/api/datasets/${encodeURIComponent(id)}`;
  return {
    async createDataset(body) {
      return (await http.post<Dataset>("/api/datasets", body, { token })).body;
    },
    getDataset: (id) => http.get<Dataset>(datasetPath(id), { token }),
    upsertRows: (datasetId, body) =>
      http.post<RowsWritten>(`${datasetPath(datasetId)}/rows/upsert`, body, { token }),
    addRows: (datasetId, documentId, rows) =>
      http.post<RowsWritten>(
        `${datasetPath(datasetId)}/documents/${encodeURIComponent(documentId)}/rows`,
        { rows },
        { token },
      ),
    deleteDocument: (datasetId, documentId) =>
      http.request<undefined>(
        "DELETE",
        `${datasetPath(datasetId)}/documents/${encodeURIComponent(documentId)}`,
        { token },
      ),
    listRows(datasetId, params, form = "query") {
      const path = `${datasetPath(datasetId)}/rows`;
      if (form === "body") return http.request<Row[]>("GET", path, { token, body: params });
      const query: Record<string, string | number> = {
        offset: params.offset,
        page_size: params.page_size,
      };
      if (params.after !== undefined) query.after = params.after;
      if (params.filter) query.filter = JSON.stringify(params.filter);
      return http.get<Row[]>(path, { token, query });
    },
  };
}
