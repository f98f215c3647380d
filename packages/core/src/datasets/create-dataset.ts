import {
  type ColumnDefinition,
  type DatasetKind,
  datasets,
  type MetadataColumnDefinition,
} from "@quarry/db";
import { embeddingDimensions, isSupportedEmbeddingModel } from "@quarry/providers";
import { createSearchIndexes } from "../search/search-indexes.ts";
import type { ProjectContext } from "../shared/context.ts";
import { BadRequestError } from "../shared/errors.ts";
import { newId } from "../shared/ids.ts";
import { SYSTEM_METADATA_KEYS } from "../shared/system-metadata.ts";
import { type DatasetView, toDatasetView } from "./dataset-view.ts";

export interface CreateDatasetInput {
  name: string;
  kind?: DatasetKind;
  columns?: ColumnDefinition[];
  metadata_columns?: MetadataColumnDefinition[];
  embedding_model?: string;
  /** only needed for embedding models whose dimensions Quarry does not know */
  dimensions?: number;
}

export const DEFAULT_COLUMNS: ColumnDefinition[] = [{ name: "text", type: "text", embed: true }];
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const MAX_DIMENSIONS = 4000;

export async function createDataset(
  ctx: ProjectContext,
  input: CreateDatasetInput,
  defaults: { embeddingModel: string },
): Promise<DatasetView> {
  const columns = input.columns ?? DEFAULT_COLUMNS;
  validateColumns(columns);
  const metadataColumns = input.metadata_columns ?? [];
  validateMetadataColumns(metadataColumns);

  const embeddingModel = input.embedding_model ?? defaults.embeddingModel;
  if (!isSupportedEmbeddingModel(embeddingModel)) {
    throw new BadRequestError(
      "unsupported embedding model; use local/hash, openai/<model> or workers-ai/<model>",
      "embedding_model",
    );
  }
  const dimensions = input.dimensions ?? embeddingDimensions(embeddingModel);
  if (dimensions === undefined) {
    throw new BadRequestError(
      `dimensions of '${embeddingModel}' are not known to Quarry; pass "dimensions"`,
      "dimensions",
    );
  }
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new BadRequestError(`must be an integer from 1 to ${MAX_DIMENSIONS}`, "dimensions");
  }

  const row = await ctx.db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(datasets)
      .values({
        id: newId("ds"),
        projectId: ctx.projectId,
        name: input.name,
        kind: input.kind ?? "standard",
        columns,
        metadataColumns,
        embeddingModel,
        dimensions,
      })
      .returning();
    if (!inserted) throw new Error("insert returned no dataset");
    await createSearchIndexes(tx, inserted);
    return inserted;
  });
  return toDatasetView(row);
}

function validateColumns(columns: ColumnDefinition[]): void {
  if (columns.length === 0) throw new BadRequestError("at least one column is required", "columns");
  const seen = new Set<string>();
  columns.forEach((column, i) => {
    if (!IDENTIFIER.test(column.name)) {
      throw new BadRequestError(
        "must be a letter or _ followed by letters, digits or _",
        `columns[${i}].name`,
      );
    }
    if (seen.has(column.name)) throw new BadRequestError("duplicate column", `columns[${i}].name`);
    seen.add(column.name);
  });
  // One embedded column per dataset: search ranks a row by one vector, and E9 embeds `text`.
  if (columns.filter((c) => c.embed).length > 1) {
    throw new BadRequestError("at most one column can be embedded", "columns");
  }
}

function validateMetadataColumns(columns: MetadataColumnDefinition[]): void {
  const seen = new Set<string>();
  columns.forEach((column, i) => {
    if (!IDENTIFIER.test(column.name)) {
      throw new BadRequestError(
        "must be a letter or _ followed by letters, digits or _",
        `metadata_columns[${i}].name`,
      );
    }
    if (SYSTEM_METADATA_KEYS.has(column.name)) {
      throw new BadRequestError("is a system metadata key", `metadata_columns[${i}].name`);
    }
    if (seen.has(column.name))
      throw new BadRequestError("duplicate column", `metadata_columns[${i}].name`);
    seen.add(column.name);
  });
}
