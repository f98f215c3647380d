import type { Database } from "@quarry/db";
import { LocalHashEmbedder } from "@quarry/providers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  type ProjectContext,
  requireDataset,
  searchRows,
  semanticRankingQuery,
  upsertRows,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { type PlanNode, planNodes } from "./support/plan-nodes.ts";
import { createTenant } from "./support/tenant.ts";
import { transactionCounter } from "./support/transaction-counter.ts";

// A file of its own: what it sets up is the share of the backlog table each dataset holds, which
// other tests' rows would change.
const database = useFreshDatabase();

const DATASETS = 4;
const BATCHES = 15;
const BATCH_ROWS = 100;
const OWN_ROWS = BATCHES * BATCH_ROWS;

/**
 * Backlog entries the transaction read so far off the table's heap, by any scan: a scan of the
 * table counts them on the table, a bitmap scan as the table's fetches, an index scan as its
 * index's fetches.
 */
const backlogEntriesRead = (tx: Database) =>
  transactionCounter(
    tx,
    sql`pg_stat_get_xact_tuples_returned('vector_backlog'::regclass)
        + pg_stat_get_xact_tuples_fetched('vector_backlog'::regclass)
        + pg_stat_get_xact_tuples_fetched('vector_backlog_dataset_id_row_id_pk'::regclass)`,
  );

let ctx: ProjectContext;
const datasetIds: string[] = [];

beforeAll(async () => {
  ctx = (await createTenant(database.db, "backlog-shared")).ctx;
  for (let d = 0; d < DATASETS; d++) {
    const dataset = await createDataset(
      ctx,
      // Entries of a real model's size (~1.5 kB each): the backlog spans over a thousand pages.
      { name: `shared-${d}`, dimensions: 384 },
      { embeddingModel: "local/hash" },
    );
    datasetIds.push(dataset.id);
  }
  // Tenants write at the same time, so their waiting rows lie interleaved on the table's pages.
  for (let batch = 0; batch < BATCHES; batch++) {
    for (const id of datasetIds) {
      await upsertRows(ctx, id, {
        document_id: `batch-${batch}`,
        rows: Array.from({ length: BATCH_ROWS }, (_, i) => ({
          data: { text: `note ${batch * BATCH_ROWS + i} on tides and harbours` },
        })),
      });
    }
  }
  // The statistics autovacuum takes: each dataset holds a quarter of the backlog.
  await database.fresh.sql("ANALYZE vector_backlog");
}, 120_000);

describe("a dataset's searches over a backlog several datasets share", () => {
  // With the dataset's share in the column's statistics, the planner took a scan of the whole
  // table for a quarter of it: every search then read every dataset's waiting rows (on native
  // PostgreSQL, 10k of 50k waiting rows: 21.8 ms against 7.0 by the key; migration 0032).
  it("read only the dataset's own waiting rows", async () => {
    const [own] = datasetIds;
    const read = await database.db.transaction(async (tx) => {
      const before = await backlogEntriesRead(tx);
      const { results } = await searchRows({ ...ctx, db: tx }, own as string, {
        query: "tides",
        top_k: 5,
      });
      expect(results).toHaveLength(5);
      return (await backlogEntriesRead(tx)) - before;
    });
    expect(read).toBeLessThanOrEqual(OWN_ROWS);
    expect(read).toBeGreaterThan(0);
  });

  // The ranking is a function, which the planner takes for 1,000 rows unless told otherwise, and
  // plans what it joins the candidates to (`rows`, a hybrid's keyword side) for that many.
  it("tell the planner how few candidates they give back", async () => {
    const topK = 5;
    const dataset = await requireDataset(ctx, datasetIds[0] as string);
    const [vector] = await new LocalHashEmbedder(384).embed(["tides"]);
    const query = semanticRankingQuery(dataset, vector as number[], topK);
    const [plan] = await database.fresh.sql<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${query.text}`,
      query.params,
    );
    // The candidates: the graph's, a bulk build's and the backlog's, `topK` each at most.
    const candidates = planNodes(plan as { "QUERY PLAN": { Plan: PlanNode }[] }).filter(
      (node) => node["Node Type"] === "Append" || node["Node Type"] === "Merge Append",
    );
    expect(candidates.map((node) => node["Actual Rows"])).toEqual([topK]);
    expect(candidates[0]?.["Plan Rows"]).toBeLessThanOrEqual(3 * topK);
  });
});
