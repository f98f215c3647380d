import { datasets } from "@quarry/db";
import { asc, eq } from "drizzle-orm";
import type { Page, ProjectContext } from "../shared/context.ts";
import { countDatasetContents, EMPTY_DATASET_COUNTS } from "./dataset-counts.ts";
import { type DatasetView, toDatasetView } from "./dataset-view.ts";

export async function listDatasets(ctx: ProjectContext, page: Page): Promise<DatasetView[]> {
  const found = await ctx.db
    .select()
    .from(datasets)
    .where(eq(datasets.projectId, ctx.projectId))
    .orderBy(asc(datasets.createdAt), asc(datasets.id))
    .limit(page.pageSize)
    .offset(page.offset);
  const counts = await countDatasetContents(
    ctx,
    found.map((d) => d.id),
  );
  return found.map((d) => toDatasetView(d, counts.get(d.id) ?? EMPTY_DATASET_COUNTS));
}
