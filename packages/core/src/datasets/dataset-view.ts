import type { datasets } from "@quarry/db";
import type { DatasetCounts } from "./dataset-counts.ts";

export type DatasetRecord = typeof datasets.$inferSelect;

/** A dataset as every route returns it, with how many rows and documents it holds. */
export interface DatasetView extends DatasetCounts {
  id: string;
  name: string;
  kind: DatasetRecord["kind"];
  columns: DatasetRecord["columns"];
  metadata_columns: DatasetRecord["metadataColumns"];
  embedding_model: string;
  dimensions: number;
  created_at: string;
}

export function toDatasetView(d: DatasetRecord, counts: DatasetCounts): DatasetView {
  return {
    id: d.id,
    name: d.name,
    kind: d.kind,
    columns: d.columns,
    metadata_columns: d.metadataColumns,
    embedding_model: d.embeddingModel,
    dimensions: d.dimensions,
    created_at: d.createdAt.toISOString(),
    row_count: counts.row_count,
    document_count: counts.document_count,
  };
}
