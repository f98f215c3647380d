import { rows } from "@quarry/db";
import { sql } from "drizzle-orm";

/** The columns every row view reads; never the vectors themselves. */
export const rowViewColumns = {
  id: rows.id,
  datasetId: rows.datasetId,
  documentId: rows.documentId,
  data: rows.data,
  metadata: rows.metadata,
  imagePaths: rows.imagePaths,
  embedded: sql<boolean>`(${rows.embedding} is not null)`,
};
