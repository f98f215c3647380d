import type { ProjectContext } from "../shared/context.ts";
import { type DatasetView, toDatasetView } from "./dataset-view.ts";
import { requireDataset } from "./require-dataset.ts";

export async function getDataset(ctx: ProjectContext, datasetId: string): Promise<DatasetView> {
  return toDatasetView(await requireDataset(ctx, datasetId));
}
