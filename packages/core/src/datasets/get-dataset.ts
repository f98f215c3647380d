import type { CalibrationQueries } from "@quarry/db";
import { pendingVectorRows } from "../search/vector-backlog.ts";
import {
  nextGraphRows,
  type VectorGraphState,
  vectorGraphState,
} from "../search/vector-graph-builds.ts";
import { datasetEfSearch } from "../search/vector-search-tuning.ts";
import type { ProjectContext } from "../shared/context.ts";
import { countDatasetContents, EMPTY_DATASET_COUNTS } from "./dataset-counts.ts";
import { type DatasetView, toDatasetView } from "./dataset-view.ts";
import { requireDataset } from "./require-dataset.ts";

/**
 * One dataset, with the state of its vector index: how many rows wait for the graph (in the
 * backlog, or moved in for the next graph by a bulk build), whether the graph serves searches
 * (`graph`) and whether a new one is being built beside it (`rebuilding`), and the
 * HNSW candidate list size its searches use — measured on its graph (`recall_at_10` at that
 * size, over `measured_rows` graph vectors, for the `measured_queries` queries `measured_on`
 * says: its own searches, or phrases of its texts until it has enough of those), or the model
 * family's default until then (all four null) — and the parameters its graph was built with,
 * with the precision it holds vectors in (`encoding`: pgvector's `vector` or `halfvec`).
 */
export interface DatasetDetailView extends DatasetView {
  vector_index: {
    pending_rows: number;
    graph: VectorGraphState;
    rebuilding: boolean;
    ef_search: number;
    recall_at_10: number | null;
    measured_rows: number | null;
    measured_on: CalibrationQueries | null;
    measured_queries: number | null;
    m: number;
    ef_construction: number;
    encoding: "vector" | "halfvec";
  };
}

export async function getDataset(
  ctx: ProjectContext,
  datasetId: string,
): Promise<DatasetDetailView> {
  const record = await requireDataset(ctx, datasetId);
  // Independent reads, sent together: over HTTP each is a round trip of its own.
  const [counts, backlogRows, movedRows, graph] = await Promise.all([
    countDatasetContents(ctx, [record.id]),
    pendingVectorRows(ctx.db, datasetId),
    nextGraphRows(ctx.db, record),
    vectorGraphState(ctx.db, datasetId),
  ]);
  return {
    ...toDatasetView(record, counts.get(record.id) ?? EMPTY_DATASET_COUNTS),
    vector_index: {
      pending_rows: backlogRows + movedRows,
      // null only for a dataset deleted since `requireDataset` read it
      graph: graph?.graph ?? "missing",
      rebuilding: graph?.rebuilding ?? false,
      ef_search: datasetEfSearch(record),
      // a `real`: 0.97 comes back as 0.9700000286
      recall_at_10:
        record.efSearchRecall === null ? null : Math.round(record.efSearchRecall * 10_000) / 10_000,
      measured_rows: record.efSearchRows,
      measured_on: record.efSearchQueries,
      measured_queries: record.efSearchQueryCount,
      m: record.graphM,
      ef_construction: record.graphEfConstruction,
      // The normalizing or not is how the graph's vectors got there, not what they are.
      encoding: record.graphEncoding === "vector" ? "vector" : "halfvec",
    },
  };
}
