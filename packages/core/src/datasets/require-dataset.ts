import { datasets } from "@quarry/db";
import { eq } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { NotFoundError, UnauthorizedError } from "../shared/errors.ts";
import type { DatasetRecord } from "./dataset-view.ts";

/**
 * Loads a dataset for the caller's project. Auth rule (docs/api.md#authentication): an id that
 * exists in another project is a 401 (the key is not valid for it); an id that exists nowhere is a
 * 404.
 */
export async function requireDataset(
  ctx: ProjectContext,
  datasetId: string,
): Promise<DatasetRecord> {
  const cached = ctx.loaded?.get(`dataset:${datasetId}`) as DatasetRecord | undefined;
  const [dataset] = cached
    ? [cached]
    : await ctx.db.select().from(datasets).where(eq(datasets.id, datasetId));
  if (!dataset) throw new NotFoundError("Dataset", datasetId);
  if (dataset.projectId !== ctx.projectId) {
    throw new UnauthorizedError("API key is not valid for this dataset's project");
  }
  ctx.loaded?.set(`dataset:${datasetId}`, dataset);
  return dataset;
}
