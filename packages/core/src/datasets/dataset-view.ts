import type { datasets } from "@quarry/db";

export type DatasetRecord = typeof datasets.$inferSelect;

export interface DatasetView {
  id: string;
  name: string;
  kind: DatasetRecord["kind"];
  columns: DatasetRecord["columns"];
  metadata_columns: DatasetRecord["metadataColumns"];
  embedding_model: string;
  dimensions: number;
  created_at: string;
}

export function toDatasetView(d: DatasetRecord): DatasetView {
  return {
    id: d.id,
    name: d.name,
    kind: d.kind,
    columns: d.columns,
    metadata_columns: d.metadataColumns,
    embedding_model: d.embeddingModel,
    dimensions: d.dimensions,
    created_at: d.createdAt.toISOString(),
  };
}
