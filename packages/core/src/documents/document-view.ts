import type { DocumentProgress, DocumentStatus, documents } from "@quarry/db";

export type DocumentRecord = typeof documents.$inferSelect;

export interface DocumentView {
  id: string;
  dataset_id: string;
  filename: string | null;
  url: string | null;
  status: DocumentStatus;
  error: string | null;
  row_count: number;
  progress: DocumentProgress | null;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export function toDocumentView(d: DocumentRecord, rowCount: number): DocumentView {
  return {
    id: d.id,
    dataset_id: d.datasetId,
    filename: d.filename,
    url: d.url,
    status: d.status,
    error: d.error,
    row_count: rowCount,
    progress: d.progress
      ? {
          unit: d.progress.unit,
          done: d.progress.done,
          total: d.progress.total,
          rows: d.progress.rows,
        }
      : null,
    metadata: d.metadata,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
