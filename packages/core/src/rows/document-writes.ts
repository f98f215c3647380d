import { type Database, documents, rows } from "@quarry/db";
import { and, eq, sql } from "drizzle-orm";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { ConflictError, NotFoundError } from "../shared/errors.ts";
import { retryOnContention, writeTransaction } from "../shared/write-transaction.ts";
import { insertRows, rowsInsertStatement, rowViews } from "./insert-rows.ts";
import type { PreparedRow } from "./prepare-rows.ts";
import { MAX_ROWS_PER_REQUEST } from "./row-input.ts";
import type { UserMetadata } from "./row-metadata.ts";
import type { RowView } from "./row-view.ts";

export type RowWriteMode = "replace" | "append";

const INGESTING = sql`${documents.status} in ('queued', 'processing')`;

/**
 * Writes a document's rows in one transaction. After the dataset's shared lock, the first
 * statement claims the document row (creating it for E11) and so locks it: concurrent writers
 * to one document queue up instead of interleaving, and a failure anywhere rolls back to the
 * old rows. Few statements on
 * purpose — each is a round trip to the database.
 */
export async function writeDocumentRows(
  db: Database,
  projectId: string,
  dataset: DatasetRecord,
  documentId: string,
  prepared: PreparedRow[],
  mode: RowWriteMode,
  create?: { filename?: string | null },
): Promise<RowView[]> {
  if (create) {
    const created = await createWithRows(db, projectId, dataset, documentId, prepared, create);
    if (created) return created;
  }
  return writeTransaction(db, dataset.id, async (tx) => {
    const claim = { status: "ready" as const, error: null, updatedAt: sql`now()` };
    const claimed = create
      ? await tx
          .insert(documents)
          .values({
            projectId,
            datasetId: dataset.id,
            id: documentId,
            filename: create.filename ?? null,
            status: "ready",
            metadata: {},
          })
          .onConflictDoUpdate({
            target: [documents.datasetId, documents.id],
            set: claim,
            setWhere: sql`not ${INGESTING}`,
          })
          .returning({
            url: documents.url,
            metadata: documents.metadata,
            created: sql<boolean>`(xmax = 0)`,
          })
      : await tx
          .update(documents)
          .set(claim)
          .where(
            and(
              eq(documents.datasetId, dataset.id),
              eq(documents.id, documentId),
              sql`not ${INGESTING}`,
            ),
          )
          .returning({
            url: documents.url,
            metadata: documents.metadata,
            created: sql<boolean>`false`,
          });
    const document = claimed[0];
    if (!document) throw await whyUnclaimed(tx, dataset.id, documentId);
    if (mode === "replace" && !document.created) {
      await tx
        .delete(rows)
        .where(and(eq(rows.datasetId, dataset.id), eq(rows.documentId, documentId)));
    }
    // The document's metadata goes onto every row; a row's own keys win.
    const withDocumentMetadata = prepared.map((row) => ({
      ...row,
      metadata: { ...(document.metadata as UserMetadata), ...row.metadata },
    }));
    return insertRows(
      tx,
      projectId,
      dataset,
      { id: documentId, url: document.url },
      withDocumentMetadata,
    );
  });
}

/** A document that could not be claimed is missing (404) or being ingested (409). */
async function whyUnclaimed(db: Database, datasetId: string, documentId: string) {
  const [found] = await db
    .select({ status: documents.status })
    .from(documents)
    .where(and(eq(documents.datasetId, datasetId), eq(documents.id, documentId)));
  if (!found) return new NotFoundError("Document", documentId);
  return new ConflictError(
    `document '${documentId}' is being ingested; write its rows when it is ready or failed`,
  );
}

/**
 * The common E11 case, a new document, in one statement (one round trip): the document and
 * its rows are inserted together, the rows only if the document was new. Returns null when
 * the id already exists, and the caller takes the locking path.
 */
async function createWithRows(
  db: Database,
  projectId: string,
  dataset: DatasetRecord,
  documentId: string,
  prepared: PreparedRow[],
  create: { filename?: string | null },
): Promise<RowView[] | null> {
  if (prepared.length > MAX_ROWS_PER_REQUEST) return null;
  const document = { id: documentId, url: null };
  // The document is inserted only while the dataset's row can be locked shared: the same
  // first lock as every other writer's (packages/db/CONCURRENCY.md).
  const result = (await retryOnContention(() =>
    db.execute(sql`
    with doc as (
      insert into documents (project_id, dataset_id, id, filename, status, metadata)
      select ${projectId}, d.id, ${documentId}, ${create.filename ?? null}, 'ready', '{}'::jsonb
      from datasets d where d.id = ${dataset.id} for key share
      on conflict do nothing
      returning id
    ),
    written as (
      ${rowsInsertStatement(projectId, dataset, document, prepared, sql`exists (select 1 from doc)`)}
    )
    select (select count(*) from doc)::int as created,
           (select coalesce(string_agg(id::text, ','), '') from written) as ids`),
  )) as unknown as {
    rows: { created: number; ids: string }[];
  };
  const [row] = result.rows;
  if (!row || Number(row.created) === 0) return null;
  // The ids as one text, not a bigint[]: the drivers' array parser reads a 100-id array a
  // character at a time (~1 ms of a request's CPU in a Worker); splitting a string does not.
  return rowViews(
    dataset,
    document,
    prepared,
    row.ids === "" ? [] : row.ids.split(",").map(Number),
  );
}
