import { z } from "zod";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { BadRequestError } from "../shared/errors.ts";
import { type UserMetadata, UserMetadataInput, userMetadataOf } from "./row-metadata.ts";

export const MAX_ROWS_PER_REQUEST = 1000;
/** per cell; generous for text, small enough that one bad row cannot exhaust a worker */
export const MAX_CELL_LENGTH = 100_000;

/** Column → text of one row (also E8's partial data); the keys are checked against the dataset. */
export const RowData = z.record(
  z.string(),
  z.string().max(MAX_CELL_LENGTH, { error: `is longer than ${MAX_CELL_LENGTH} characters` }),
);

/** One row of E11/E12/E13: `{data: {<column>: string}, metadata?}`, at least one column. */
export const RequestRow = z
  .object({
    data: RowData.refine((data) => Object.keys(data).length > 0, {
      error: "must have at least one column",
    }),
    metadata: UserMetadataInput.optional(),
  })
  .strict();

export type RequestRow = z.output<typeof RequestRow>;

export const RequestRows = z.array(RequestRow).max(MAX_ROWS_PER_REQUEST);

/** A row ready to prepare: data under the dataset's columns, user metadata only. */
export interface RowInput {
  data: Record<string, string>;
  metadata: UserMetadata;
}

/**
 * The rules that depend on the dataset: data keys are its columns, declared metadata keys
 * have their declared types. Names the offending path (`rows[3].metadata.year`).
 */
export function checkRows(
  dataset: DatasetRecord,
  rows: readonly RequestRow[],
  path = "rows",
): RowInput[] {
  return rows.map((row, i) => ({
    data: checkRowData(dataset, row.data, `${path}[${i}].data`),
    metadata: userMetadataOf(row.metadata ?? {}, `${path}[${i}].metadata`, dataset.metadataColumns),
  }));
}

/** Refuses a key that is not a column of the dataset. */
export function checkRowData(
  dataset: DatasetRecord,
  data: Record<string, string>,
  path: string,
): Record<string, string> {
  const columns = dataset.columns.map((c) => c.name);
  const unknown = Object.keys(data).find((key) => !columns.includes(key));
  if (unknown !== undefined) {
    throw new BadRequestError(
      `'${unknown}' is not a column of this dataset (columns: ${columns.join(", ")})`,
      `${path}.${unknown}`,
    );
  }
  return data;
}

/** The dataset's embedded column (at most one), or null when it embeds nothing. */
export function embeddedColumn(dataset: DatasetRecord): string | null {
  return dataset.columns.find((c) => c.embed)?.name ?? null;
}
