import { type Database, rows } from "@quarry/db";
import { sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { KEYWORD_CONFIG } from "./keyword-config.ts";
import type { PreparedRow } from "./prepare-rows.ts";
import { embeddedColumn } from "./row-input.ts";
import { rowMetadata } from "./row-metadata.ts";
import { type RowView, toRowView } from "./row-view.ts";

/** Rows per INSERT statement: keeps each statement's parameter count well under Postgres' limit. */
const INSERT_BATCH = 500;

/**
 * Appends prepared rows to a document, inside the caller's transaction. Ids are reserved from
 * the rows sequence first so each row's metadata can carry its own `rowId`; the sequence also
 * gives the dataset-wide insertion order that E6 lists by.
 */
export async function insertRows(
  db: Database,
  projectId: string,
  dataset: DatasetRecord,
  document: { id: string; url: string | null },
  prepared: PreparedRow[],
): Promise<RowView[]> {
  if (prepared.length === 0) return [];
  const ids = await reserveRowIds(db, prepared.length);
  const column = embeddedColumn(dataset);
  const values = prepared.map((row, i) => {
    const id = ids[i] as number;
    return {
      id,
      projectId,
      datasetId: dataset.id,
      documentId: document.id,
      data: row.data,
      metadata: rowMetadata(row.metadata, {
        rowId: id,
        documentId: document.id,
        ...(document.url ? { url: document.url } : {}),
      }),
      embedding: row.embedding,
      fts: sql`to_tsvector(${KEYWORD_CONFIG}::regconfig, ${row.keywordText})`,
      imagePaths: null,
    };
  });
  for (let i = 0; i < values.length; i += INSERT_BATCH) {
    await db.insert(rows).values(values.slice(i, i + INSERT_BATCH));
  }
  return values.map((v, i) =>
    toRowView({ ...v, embeddedColumn: prepared[i]?.embedding ? column : null }),
  );
}

export async function reserveRowIds(db: Database, count: number): Promise<number[]> {
  const reserved = await db
    .select({ id: sql<string | number>`nextval(pg_get_serial_sequence('rows', 'id'))` })
    .from(sql`generate_series(1, ${count}::int)`);
  return reserved.map((r) => Number(r.id)).sort((a, b) => a - b);
}
