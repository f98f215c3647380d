import type { rows } from "@quarry/db";

export type RowRecord = typeof rows.$inferSelect;

/** A row as the API shows it (docs/api.md#row). */
export interface RowView {
  id: number;
  dataset_id: string;
  data: Record<string, string>;
  /** embedded column → vector id; empty when the row is stored unembedded */
  embedding_vector_ids: Record<string, string>;
  metadata: Record<string, unknown>;
  document_id: string;
  image_paths: Record<string, string> | null;
}

/** The columns a row view needs: never the embedding or keyword vector (large, internal). */
export type RowViewSource = Pick<
  RowRecord,
  "id" | "datasetId" | "documentId" | "data" | "metadata" | "imagePaths"
> & { embeddedColumn: string | null };

export function toRowView(row: RowViewSource): RowView {
  return {
    id: row.id,
    dataset_id: row.datasetId,
    data: row.data,
    embedding_vector_ids: row.embeddedColumn
      ? { [row.embeddedColumn]: vectorId(row.id, row.embeddedColumn) }
      : {},
    metadata: row.metadata,
    document_id: row.documentId,
    image_paths: row.imagePaths ?? null,
  };
}

/** One vector per (row, column): the id is derived, so it is stable and needs no storage. */
export function vectorId(rowId: number, column: string): string {
  return `${rowId}:${column}`;
}
