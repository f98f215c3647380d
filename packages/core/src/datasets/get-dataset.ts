import { pendingVectorRows } from "../search/vector-backlog.ts";
import type { ProjectContext } from "../shared/context.ts";
import { type DatasetView, toDatasetView } from "./dataset-view.ts";
import { requireDataset } from "./require-dataset.ts";

/** One dataset, with the state of its vector index (how many rows wait for the graph). */
export interface DatasetDetailView extends DatasetView {
  vector_index: { pending_rows: number };
}

export async function getDataset(
  ctx: ProjectContext,
  datasetId: string,
): Promise<DatasetDetailView> {
  const dataset = toDatasetView(await requireDataset(ctx, datasetId));
  return { ...dataset, vector_index: { pending_rows: await pendingVectorRows(ctx.db, datasetId) } };
}
