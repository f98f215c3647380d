import { rows } from "@quarry/db";
import { and, eq, sql } from "drizzle-orm";
import { requireDataset } from "../datasets/require-dataset.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError } from "../shared/errors.ts";
import {
  positionMetadata,
  SYSTEM_METADATA_KEYS,
  storedRowPosition,
} from "../shared/system-metadata.ts";
import { datasetWriteLock, retryOnContention } from "../shared/write-transaction.ts";
import { KEYWORD_CONFIG } from "./keyword-config.ts";
import { embeddableText } from "./prepare-rows.ts";
import { parseRowId } from "./row-id.ts";
import { checkRowData, embeddedColumn } from "./row-input.ts";
import { rowMetadata, type UserMetadata, userMetadataOf } from "./row-metadata.ts";
import { rowViewColumns } from "./row-queries.ts";
import { type RowView, toRowView } from "./row-view.ts";
import type { UpdateRowInput } from "./update-row-input.ts";

/**
 * E8: merges `data` into the row's columns and `metadata` into its user metadata (PATCH
 * semantics; keys not named stay). When the embedded column changes the row is re-embedded
 * (before the write, so a provider failure changes nothing). System keys stay the service's.
 */
export async function updateRow(
  ctx: ProjectContext,
  datasetId: string,
  rowIdParam: string,
  patch: UpdateRowInput,
): Promise<RowView> {
  const dataset = await requireDataset(ctx, datasetId);
  const rowId = parseRowId(rowIdParam);
  const { data } = patch;
  const dataPatch = data === undefined ? {} : checkRowData(dataset, data, "data");
  const metadataPatch = userMetadataOf(patch.metadata ?? {}, "metadata", dataset.metadataColumns);

  const [row] = await ctx.db
    .select(rowViewColumns)
    .from(rows)
    .where(and(eq(rows.datasetId, dataset.id), eq(rows.id, rowId)));
  if (!row) throw new NotFoundError("Row", rowId);

  const column = embeddedColumn(dataset);
  const nextData = { ...row.data, ...dataPatch };
  const before = embeddableText(row.data, column);
  const after = embeddableText(nextData, column);
  const reembed = column !== null && dataPatch[column] !== undefined && before !== after;
  const embedding =
    reembed && after !== null ? (await embedTexts(ctx, dataset, [after]))[0] : undefined;
  const keywordText = after ?? Object.values(nextData).join("\n");

  const system = row.metadata as { documentId: string; url?: string };
  const nextMetadata = {
    ...rowMetadata(
      { ...userPart(row.metadata), ...metadataPatch },
      { rowId, documentId: system.documentId, ...(system.url ? { url: system.url } : {}) },
    ),
    // where the row comes from in its document stays (`chunk`, `page`)
    ...positionMetadata(storedRowPosition(row.metadata)),
  };
  const [updated] = await retryOnContention(() =>
    ctx.db
      .update(rows)
      .set({
        data: nextData,
        metadata: nextMetadata,
        ...(reembed ? { embedding: embedding ?? null } : {}),
        ...(data !== undefined
          ? { fts: sql`to_tsvector(${KEYWORD_CONFIG}::regconfig, ${keywordText})` }
          : {}),
      })
      .where(and(eq(rows.datasetId, dataset.id), eq(rows.id, rowId), datasetWriteLock(dataset.id)))
      .returning(rowViewColumns),
  );
  // The row can vanish between read and write (its document replaced): that is a 404 too.
  if (!updated) throw new NotFoundError("Row", rowId);
  return toRowView({ ...updated, embeddedColumn: updated.embedded ? column : null });
}

function userPart(metadata: Record<string, unknown>): UserMetadata {
  const out: UserMetadata = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (!SYSTEM_METADATA_KEYS.has(key)) out[key] = value as UserMetadata[string];
  }
  return out;
}
