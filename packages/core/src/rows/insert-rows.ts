import type { Database } from "@quarry/db";
import { type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { positionMetadata, type RowPosition } from "../shared/system-metadata.ts";
import { KEYWORD_CONFIG } from "./keyword-config.ts";
import type { PreparedRow } from "./prepare-rows.ts";
import { NEXT_ROW_ID } from "./row-id.ts";
import { embeddedColumn } from "./row-input.ts";
import { rowMetadata } from "./row-metadata.ts";
import { type RowView, toRowView } from "./row-view.ts";
import { scaledVectorSql, scaleVectors } from "./vector-transfer.ts";

/**
 * Rows per statement. Each statement's parameters (~4 KB a row with its vector) are copied
 * a few times on their way out (string, UTF-8 bytes, protocol frame): 500 rows keep that under
 * ~10 MB of an ingest slice's 128, and a round trip more per 500 rows costs ~1 % of the time.
 */
export const INSERT_BATCH = 500;

/** A prepared row of a chunked document, with where it comes from (`chunk`, `page`). */
export interface PositionedRow extends PreparedRow {
  position?: RowPosition;
}

/**
 * A document's rows numbered in order from `firstChunk` (the rows its earlier slices wrote),
 * each with the page it starts on when `pages` gives one: the service keys `chunk` and `page`.
 */
export function withPositions(
  rows: readonly PreparedRow[],
  firstChunk: number,
  pages?: readonly (number | undefined)[],
): PositionedRow[] {
  return rows.map((row, i) => {
    const page = pages?.[i];
    const chunk = firstChunk + i;
    return { ...row, position: page === undefined ? { chunk } : { chunk, page } };
  });
}

/**
 * Appends prepared rows to a document, inside the caller's transaction, in one statement per
 * batch: the rows travel as one JSON parameter, ids are drawn from the rows sequence in input
 * order inside the statement (the dataset-wide insertion order E6 lists by), and each row's
 * metadata gets its own `rowId` in the same statement. One round trip, however many rows.
 */
export async function insertRows(
  db: Database,
  projectId: string,
  dataset: DatasetRecord,
  document: { id: string; url: string | null },
  prepared: PositionedRow[],
): Promise<RowView[]> {
  const views: RowView[] = [];
  for (let start = 0; start < prepared.length; start += INSERT_BATCH) {
    const batch = prepared.slice(start, start + INSERT_BATCH);
    const result = (await db.execute(
      rowsInsertStatement(projectId, dataset, document, batch),
    )) as unknown as { rows: { id: string | number }[] };
    views.push(
      ...rowViews(
        dataset,
        document,
        batch,
        result.rows.map((r) => Number(r.id)),
      ),
    );
  }
  return views;
}

/**
 * `insert into rows … returning id` for one batch: the rows travel as one JSON parameter and
 * their vectors beside it (`vectorsParameter`), ids come from the rows sequence in input order
 * (or are the `ids` reserved for them, one per row), and each row's metadata gets its `rowId`.
 * Usable on its own or inside a larger statement.
 */
export function rowsInsertStatement(
  projectId: string,
  dataset: Pick<DatasetRecord, "id" | "dimensions">,
  document: { id: string; url: string | null },
  batch: PositionedRow[],
  onlyIf: SQL = sql`true`,
  ids?: readonly number[],
): SQL {
  const vectors = scaleVectors(batch.map((row) => row.embedding));
  const payload = batch.map((row, ord) => ({
    ord,
    ...(ids ? { rid: ids[ord] } : {}),
    data: row.data,
    // rowId is added by the statement; the rest of the system keys are known here.
    metadata: {
      ...rowMetadata(row.metadata, {
        rowId: 0,
        documentId: document.id,
        ...(document.url ? { url: document.url } : {}),
      }),
      ...positionMetadata(row.position),
    },
    text: row.keywordText,
  }));
  return sql`
    insert into rows (id, project_id, dataset_id, document_id, data, metadata, embedding, fts)
    select s.id, ${projectId}, ${dataset.id}, ${document.id}, s.data,
           s.metadata || jsonb_build_object('rowId', s.id),
           ${scaledVectorSql(sql`s.embedding`, vectors.exponent, dataset.dimensions)},
           to_tsvector(${KEYWORD_CONFIG}::regconfig, s.text)
    from (
      select ${ids ? sql`v.rid` : NEXT_ROW_ID} as id, v.*
      from (
        select * from rows from (
          jsonb_to_recordset(${JSON.stringify(payload)}::jsonb)
            as (ord int, rid bigint, data jsonb, metadata jsonb, text text),
          unnest(string_to_array(${vectorsParameter(vectors.integers)}::text, ';', ''))
        ) as r(ord, rid, data, metadata, text, embedding)
        order by ord
      ) v
    ) s
    where ${onlyIf}
    returning id`;
}

/**
 * A batch's vectors as one text parameter beside the JSON one, in input order: their int4
 * literals joined by `;`, an empty one for a row without a vector (NULL once split); `rows
 * from` zips the two lists by position. Inside the JSON, Postgres' JSON parser read each
 * vector's ~4 KB a character at a time before the int4 parser read it again: a 100-row
 * payload parsed in 7.1 ms with its vectors and 2.3 without, and a 100-row E11 batch took
 * ~4 ms less (p50, native, on a VM 2–3× slower than usual).
 */
function vectorsParameter(integers: readonly (string | null)[]): string {
  return integers.map((literal) => literal ?? "").join(";");
}

/** The views of rows just written, from their ids (ascending = input order). */
export function rowViews(
  dataset: DatasetRecord,
  document: { id: string; url: string | null },
  batch: PositionedRow[],
  writtenIds: number[],
): RowView[] {
  const column = embeddedColumn(dataset);
  const ids = [...writtenIds].sort((a, b) => a - b);
  return batch.map((row, i) => {
    const id = ids[i] as number;
    return toRowView({
      id,
      datasetId: dataset.id,
      documentId: document.id,
      data: row.data,
      metadata: {
        ...rowMetadata(row.metadata, {
          rowId: id,
          documentId: document.id,
          ...(document.url ? { url: document.url } : {}),
        }),
        ...positionMetadata(row.position),
      },
      imagePaths: null,
      embeddedColumn: row.embedding ? column : null,
    });
  });
}
