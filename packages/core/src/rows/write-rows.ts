import { requireDataset } from "../datasets/require-dataset.ts";
import type { ProjectContext } from "../shared/context.ts";
import { newUuid } from "../shared/ids.ts";
import { writeDocumentRows } from "./document-writes.ts";
import { prepareRows } from "./prepare-rows.ts";
import { checkRows } from "./row-input.ts";
import type { RowView } from "./row-view.ts";
import type { DocumentRowsInput, UpsertRowsInput } from "./upsert-rows-input.ts";

/**
 * E11, E12 and E13 reply with the document and the stored rows, in order
 * (docs/api.md#e11-upsert-rows).
 */
export interface RowsWritten {
  document_id: string;
  rows: RowView[];
}

/**
 * E11: without `document_id` a document is created with a generated id; with one, the
 * document's rows are replaced, or the document is created when it does not exist yet.
 */
export async function upsertRows(
  ctx: ProjectContext,
  datasetId: string,
  input: UpsertRowsInput,
): Promise<RowsWritten> {
  const dataset = await requireDataset(ctx, datasetId);
  const documentId = input.document_id ?? newUuid();
  const inputs = checkRows(dataset, input.rows);
  const prepared = await prepareRows(ctx, dataset, inputs);
  const rows = await writeDocumentRows(
    ctx.db,
    ctx.projectId,
    dataset,
    documentId,
    prepared,
    "replace",
    {},
  );
  return { document_id: documentId, rows };
}

/** E12 replaces and E13 appends rows of an existing document (404 when it does not exist). */
export async function writeRowsOfDocument(
  ctx: ProjectContext,
  datasetId: string,
  documentId: string,
  input: DocumentRowsInput,
  mode: "replace" | "append",
): Promise<RowsWritten> {
  const dataset = await requireDataset(ctx, datasetId);
  const inputs = checkRows(dataset, input.rows);
  const prepared = await prepareRows(ctx, dataset, inputs);
  const rows = await writeDocumentRows(ctx.db, ctx.projectId, dataset, documentId, prepared, mode);
  return { document_id: documentId, rows };
}
