import { type ColumnDefinition, datasets } from "@quarry/db";
import { embeddingDimensions, isSupportedEmbeddingModel } from "@quarry/providers";
import { createSearchIndexes } from "../search/search-indexes.ts";
import { type VectorGraphParameters, vectorGraphFor } from "../search/vector-search-tuning.ts";
import type { ProjectContext } from "../shared/context.ts";
import { BadRequestError } from "../shared/errors.ts";
import { newId } from "../shared/ids.ts";
import type { CreateDatasetInput } from "./create-dataset-input.ts";
import { EMPTY_DATASET_COUNTS } from "./dataset-counts.ts";
import { type DatasetView, toDatasetView } from "./dataset-view.ts";

export const DEFAULT_COLUMNS: ColumnDefinition[] = [{ name: "text", type: "text", embed: true }];

/**
 * Creates a dataset from a valid body (`CreateDatasetInput`). The model is the body's or the
 * deployment's default, so whether it is supported and its dimensions known is checked here.
 */
export async function createDataset(
  ctx: ProjectContext,
  input: CreateDatasetInput,
  defaults: {
    embeddingModel: string;
    /** the deployment's graph parameters over the model family's (`vectorGraphFor`) */
    graph?: Partial<VectorGraphParameters>;
  },
): Promise<DatasetView> {
  const columns = input.columns ?? DEFAULT_COLUMNS;
  const metadataColumns = input.metadata_columns ?? [];
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

  const graph = vectorGraphFor(embeddingModel, dimensions, defaults.graph);
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
        graphM: graph.m,
        graphEfConstruction: graph.efConstruction,
        graphEncoding: graph.encoding,
      })
      .returning();
    if (!inserted) throw new Error("insert returned no dataset");
    await createSearchIndexes(tx, inserted);
    return inserted;
  });
  return toDatasetView(row, EMPTY_DATASET_COUNTS);
}
