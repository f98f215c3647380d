import { datasets } from "@quarry/db";
import { eq } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { requireOwned } from "../shared/require-owned.ts";
import type { DatasetRecord } from "./dataset-view.ts";

/** The caller's dataset: another project's is a 401, an unknown id a 404 (see requireOwned). */
export function requireDataset(ctx: ProjectContext, datasetId: string): Promise<DatasetRecord> {
  return requireOwned(ctx, "Dataset", datasetId, () =>
    ctx.db.select().from(datasets).where(eq(datasets.id, datasetId)),
  );
}
