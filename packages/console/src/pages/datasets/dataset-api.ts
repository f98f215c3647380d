import { useQuery } from "@tanstack/react-query";
import { api, ok } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { usePagedQuery } from "../../components/use-paged-query.ts";

export type Dataset = components["schemas"]["Dataset"];
export type DatasetDetail = components["schemas"]["DatasetDetail"];
export type Document = components["schemas"]["Document"];
export type Row = components["schemas"]["Row"];
export type CreateDataset = components["schemas"]["CreateDataset"];

/** Query keys, so a write can invalidate exactly what it changed. */
export const datasetKeys = {
  all: ["datasets"] as const,
  list: (offset: number, pageSize: number) => ["datasets", "list", offset, pageSize] as const,
  one: (id: string) => ["datasets", id] as const,
  documents: (id: string) => ["datasets", id, "documents"] as const,
  documentList: (id: string, offset: number, pageSize: number) =>
    ["datasets", id, "documents", "list", offset, pageSize] as const,
  document: (id: string, documentId: string) => ["datasets", id, "documents", documentId] as const,
  /** a page of a document's rows, after the row id `after` (null: the first page) */
  rows: (id: string, documentId: string, after: number | null, pageSize: number) =>
    ["datasets", id, "rows", documentId, after, pageSize] as const,
};

export function isIngesting(document: Pick<Document, "status">) {
  return document.status === "queued" || document.status === "processing";
}

/** How often a page polls while something is being ingested. */
export const INGEST_POLL_MS = 1000;

export function useDatasets(pageSize: number) {
  return usePagedQuery(pageSize, (offset) => ({
    queryKey: datasetKeys.list(offset, pageSize),
    queryFn: () =>
      ok(
        api.GET("/api/datasets", { params: { query: { offset, page_size: pageSize } } }),
      ) as Promise<Dataset[]>,
  }));
}

export function useDataset(id: string) {
  return useQuery({
    queryKey: datasetKeys.one(id),
    queryFn: () => ok(api.GET("/api/datasets/{id}", { params: { path: { id } } })),
  });
}

export function useDocument(datasetId: string, documentId: string) {
  return useQuery({
    queryKey: datasetKeys.document(datasetId, documentId),
    queryFn: () =>
      ok(
        api.GET("/api/datasets/{id}/documents/{document_id}", {
          params: { path: { id: datasetId, document_id: documentId } },
        }),
      ),
    refetchInterval: (query) =>
      query.state.data && isIngesting(query.state.data) ? INGEST_POLL_MS : false,
  });
}
