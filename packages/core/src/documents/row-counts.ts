import { sql } from "drizzle-orm";

/**
 * A `documents` row's row count, as a column of a select over `documents`: read from
 * `keyword_documents`, the per-document row count the row triggers keep exactly in the same
 * statement as the rows (every row, with or without terms; the entry goes when the last row
 * does). One index lookup per document, where `count(*)` over `rows` read every row of it: a
 * document being ingested is polled for its progress, and at 40k rows each poll counted for
 * ~28 ms of database time, growing with the file, beside the ingestion it was waiting for.
 * Written out with the table names: drizzle leaves columns unqualified in a one-table select,
 * and inside the subquery `dataset_id` would name `keyword_documents`' own.
 */
export const documentRowCount = sql<number>`coalesce((
  SELECT k.row_count FROM keyword_documents k
  WHERE k.dataset_id = "documents"."dataset_id" AND k.document_id = "documents"."id"), 0)`.mapWith(
  Number,
);
