import { type Database, type DocumentProgress, type DocumentStatus, documents } from "@quarry/db";
import { and, type SQL, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { type DocumentKey, whereDocumentUnfinished } from "../documents/document-key.ts";
import { INSERT_BATCH, type PositionedRow, rowsInsertStatement } from "../rows/insert-rows.ts";
import { NEXT_ROW_ID } from "../rows/row-id.ts";
import { mapConcurrently } from "../shared/map-concurrently.ts";
import { datasetWriteLock, retryOnContention } from "../shared/write-transaction.ts";

/**
 * Parts of one slice written at once. Each part is a statement of its own, so each runs on its
 * own database backend: on the 2-core bench machine two parts at once halve the time a slice's
 * 2,000 rows spend in the database (~410 → ~220 ms; four at once were no faster), which is most
 * of the slice. Two requests in flight stay well inside a Worker's six connections.
 */
export const SLICE_WRITE_LANES = 2;

/** The slice of a document a message writes: where it starts, in the progress unit. */
export interface SliceKey extends DocumentKey {
  position: number;
}

/**
 * Writes a slice's `count` rows exactly once, in parts of `INSERT_BATCH` rows that commit on
 * their own and run `SLICE_WRITE_LANES` at a time (packages/db/CONCURRENCY.md):
 * 1. the slice's row ids are reserved once, in file order, and kept (`ingest_slices`): a
 *    delivery that retries the slice reuses them, so the rows list in file order (E6) even if
 *    some parts were stored by an earlier attempt;
 * 2. each part is prepared (`prepare`: embedded, positioned) when a lane takes it, so one
 *    part's embedding and JSON overlap another's database work, and at most
 *    `SLICE_WRITE_LANES` parts are in memory at once;
 * 3. each part inserts its marker (`ingest_slice_parts`) and its rows in one statement, and
 *    only while the document is still being ingested at this slice: a part already stored is
 *    skipped, a part of a document failed, deleted or moved on writes nothing.
 * Returns false when the document is no longer ingesting at this position (nothing written).
 * The slice is complete only when `recordSliceProgress` moves the document on; until then a
 * redelivered message writes the parts still missing.
 */
export async function writeSliceRows(
  db: Database,
  dataset: Pick<DatasetRecord, "id" | "dimensions">,
  document: { id: string; url: string | null },
  key: SliceKey,
  count: number,
  prepare: (start: number, end: number) => Promise<PositionedRow[]>,
): Promise<boolean> {
  if (count === 0) return true;
  const ids = await reserveRowIds(db, key, count);
  if (!ids) return false;
  const parts: number[] = [];
  for (let start = 0; start < count; start += INSERT_BATCH) parts.push(start);
  await mapConcurrently(parts, SLICE_WRITE_LANES, async (start, part) => {
    const end = Math.min(start + INSERT_BATCH, count);
    const rows = await prepare(start, end);
    const statement = sql`with claimed as (${claimPart(key, part)}) ${rowsInsertStatement(
      key.projectId,
      dataset,
      document,
      rows,
      sql`exists (select 1 from claimed)`,
      ids.slice(start, end),
    )}`;
    await retryOnContention(() => db.execute(statement));
  });
  return true;
}

/**
 * Records a written slice on the document (its progress, and `ready` after the last slice) if
 * the document is still at `key.position`, and drops the slice's reserved ids and part markers:
 * a later delivery of the slice finds the progress ahead and skips. Returns whether it moved
 * the document (false: another delivery did, or the document was failed or deleted).
 */
export async function recordSliceProgress(
  db: Database,
  key: SliceKey,
  status: Extract<DocumentStatus, "processing" | "ready">,
  progress: DocumentProgress,
): Promise<boolean> {
  // The document is updated before the slice's records are deleted (the delete reads the
  // update's result): the same order as a part's statement, which locks the document first.
  const result = (await retryOnContention(() =>
    db.execute(sql`
      with advanced as (
        update documents
        set status = ${status}, error = null, progress = ${JSON.stringify(progress)}::jsonb,
            updated_at = now()
        where ${atSlice(key)} and ${datasetWriteLock(key.datasetId)}
        returning id
      ), cleared as (
        delete from ingest_slices s using advanced a
        where s.dataset_id = ${key.datasetId} and s.document_id = a.id
          and s.position = ${key.position}
      )
      select count(*)::int as advanced from advanced`),
  )) as unknown as { rows: { advanced: number }[] };
  return (result.rows[0]?.advanced ?? 0) > 0;
}

/**
 * The slice's row ids, reserved by its first delivery: `count` values of the rows sequence in
 * ascending order. Null when the document is not ingesting at this position any more.
 */
async function reserveRowIds(db: Database, key: SliceKey, count: number): Promise<number[] | null> {
  type Reserved = { rows: { row_ids: unknown[] }[] };
  const inserted = (await db.execute(sql`
    insert into ingest_slices (dataset_id, document_id, position, row_ids)
    select ${key.datasetId}, ${key.documentId}, ${key.position}::bigint,
           array(select ${NEXT_ROW_ID}
                 from generate_series(1, ${count}::int) order by 1)
    where exists (select 1 from documents where ${atSlice(key)})
    on conflict do nothing
    returning row_ids`)) as unknown as Reserved;
  // An earlier delivery reserved them (or one running now did: the insert waited for it), or
  // the document moved on; a new statement sees what the insert's snapshot could not.
  const found =
    inserted.rows[0] ??
    (
      (await db.execute(sql`
        select s.row_ids from ingest_slices s
        where s.dataset_id = ${key.datasetId} and s.document_id = ${key.documentId}
          and s.position = ${key.position}
          and exists (select 1 from documents where ${atSlice(key)})`)) as unknown as Reserved
    ).rows[0];
  const ids = found?.row_ids.map(Number);
  if (!ids) return null;
  if (ids.length !== count) {
    // The file and the dataset are fixed while a document ingests, so a slice always parses
    // to the same rows; anything else is a defect, not something to write around.
    throw new Error(
      `slice at ${key.position} of '${key.documentId}' reserved ${ids.length} row ids for ${count} rows`,
    );
  }
  return ids;
}

/**
 * The marker of one part, inserted only while the document is ingesting at this slice, after
 * locking in the order every writer follows: the dataset's row (shared), then the document's
 * row (shared: the parts of a slice do not wait for each other, but anything that updates or
 * deletes the document waits for the parts in flight, and they for it).
 */
function claimPart(key: SliceKey, part: number): SQL {
  return sql`
    insert into ingest_slice_parts (dataset_id, document_id, position, part)
    select ${key.datasetId}, ${key.documentId}, ${key.position}::bigint, ${part}::int
    where ${datasetWriteLock(key.datasetId)}
      and exists (select 1 from documents where ${atSlice(key)} for share)
    on conflict do nothing
    returning part`;
}

/** The document, while it is still being ingested and its progress is at the slice's start. */
function atSlice(key: SliceKey): SQL {
  return and(
    whereDocumentUnfinished(key),
    sql`coalesce((${documents.progress} ->> 'done')::bigint, 0) = ${key.position}`,
  ) as SQL;
}
