import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { BadRequestError } from "../shared/errors.ts";
import { type UserMetadata, validateUserMetadata } from "./row-metadata.ts";

/** A validated row from a request: data keyed by dataset column, user metadata only. */
export interface RowInput {
  data: Record<string, string>;
  metadata: UserMetadata;
}

export const MAX_ROWS_PER_REQUEST = 1000;
/** per cell; generous for text, small enough that one bad row cannot exhaust a worker */
export const MAX_CELL_LENGTH = 100_000;

/**
 * Validates the `rows` array of E11/E12/E13: each `{data: {<column>: string}, metadata?}`.
 * Data keys must be dataset columns; at least one column per row. Names the offending path.
 */
export function validateRowInputs(
  dataset: DatasetRecord,
  value: unknown,
  path = "rows",
): RowInput[] {
  if (!Array.isArray(value)) throw new BadRequestError("must be an array of rows", path);
  if (value.length > MAX_ROWS_PER_REQUEST) {
    throw new BadRequestError(`takes at most ${MAX_ROWS_PER_REQUEST} rows per request`, path);
  }
  return value.map((row, i) => validateRowInput(dataset, row, `${path}[${i}]`));
}

function validateRowInput(dataset: DatasetRecord, row: unknown, path: string): RowInput {
  if (typeof row !== "object" || row === null || Array.isArray(row)) {
    throw new BadRequestError("must be an object with 'data' and optional 'metadata'", path);
  }
  const { data, metadata, ...rest } = row as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) {
    throw new BadRequestError(
      "unknown field; a row has 'data' and 'metadata'",
      `${path}.${unknown}`,
    );
  }
  const checked = validateRowData(dataset, data, `${path}.data`);
  if (Object.keys(checked).length === 0) {
    throw new BadRequestError("must have at least one column", `${path}.data`);
  }
  return {
    data: checked,
    metadata:
      metadata === undefined
        ? {}
        : validateUserMetadata(metadata, `${path}.metadata`, dataset.metadataColumns),
  };
}

/** Data of one row (also E8's partial data): string values under the dataset's columns. */
export function validateRowData(
  dataset: DatasetRecord,
  data: unknown,
  path: string,
): Record<string, string> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new BadRequestError("must be an object of column → string", path);
  }
  const columns = new Set(dataset.columns.map((c) => c.name));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    const at = `${path}.${key}`;
    if (!columns.has(key)) {
      throw new BadRequestError(
        `'${key}' is not a column of this dataset (columns: ${[...columns].join(", ")})`,
        at,
      );
    }
    if (typeof value !== "string") throw new BadRequestError("must be a string", at);
    if (value.length > MAX_CELL_LENGTH) {
      throw new BadRequestError(`is longer than ${MAX_CELL_LENGTH} characters`, at);
    }
    out[key] = value;
  }
  return out;
}

/** The dataset's embedded column (at most one), or null when it embeds nothing. */
export function embeddedColumn(dataset: DatasetRecord): string | null {
  return dataset.columns.find((c) => c.embed)?.name ?? null;
}
