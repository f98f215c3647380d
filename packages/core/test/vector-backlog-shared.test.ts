import type { Database } from "@quarry/db";
import { LocalHashEmbedder } from "@quarry/providers";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { compileFilter } from "../src/filter/compile-filter.ts";
import {
  createDataset,
  type ProjectContext,
  type QueryText,
  queryText,
  requireDataset,
  SemanticSearch,
  searchRows,
  semanticRankingQuery,
  upsertRows,
  VECTOR_SEARCH_TUNING,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { type PlanNode, planNodes } from "./support/plan-nodes.ts";
import { createTenant } from "./support/tenant.ts";
import { transactionCounter } from "./support/transaction-counter.ts";

// A file of its own: what it sets up is the share of the backlog table each dataset holds, which
// other tests' rows would change.
const database = useFreshDatabase();

const DATASETS = 4;
const BATCHES = 25;
const BATCH_ROWS = 100;
/** more than a filtered search ranks exactly: a filter that passes them all walks the graph */
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

/** The nodes of `statement`'s plan, root first (`EXPLAIN (<options>, FORMAT JSON)`). */
async function planOf(statement: QueryText, options: "ANALYZE" | "" = ""): Promise<PlanNode[]> {
  const [plan] = await database.fresh.sql<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
    `EXPLAIN (${options ? `${options}, ` : ""}FORMAT JSON) ${statement.text}`,
    statement.params,
  );
  if (!plan) throw new Error("EXPLAIN returned no plan");
  return planNodes(plan);
}

/** The first dataset's record and the embedded query "tides", for the statements under test. */
async function searchedDataset() {
  const dataset = await requireDataset(ctx, datasetIds[0] as string);
  const [vector] = await new LocalHashEmbedder(384).embed(["tides"]);
  return { dataset, vector: vector as number[] };
}

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
          metadata: { tide: "high" },
        })),
      });
    }
  }
  // The statistics autovacuum takes: each dataset holds a quarter of the backlog and of `rows`.
  await database.fresh.sql("ANALYZE vector_backlog");
  await database.fresh.sql("ANALYZE rows");
}, 180_000);

describe("a dataset's searches over a backlog several datasets share", () => {
  // With the dataset's share in the column's statistics, the planner took a scan of the whole
  // table for a quarter of it: every search then read every dataset's waiting rows (on native
  // PostgreSQL, 10k of 50k waiting rows: 11.9 ms against 4.8 by the key; migration 0032).
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
    const { dataset, vector } = await searchedDataset();
    const nodes = await planOf(semanticRankingQuery(dataset, vector, topK), "ANALYZE");
    // The candidates: the graph's, a bulk build's and the backlog's, `topK` each at most.
    const candidates = nodes.filter(
      (node) => node["Node Type"] === "Append" || node["Node Type"] === "Merge Append",
    );
    expect(candidates.map((node) => node["Actual Rows"])).toEqual([topK]);
    expect(candidates[0]?.["Plan Rows"]).toBeLessThanOrEqual(3 * topK);
  });

  // Filtered, the backlog's entries (and a bulk build's vectors) are joined to their rows. Joined
  // by id alone, the rows that pass the filter could be found, and were when that looked cheaper,
  // in every dataset: 10k waiting rows of one of five datasets, 52k rows in all, took 75 ms
  // (native), hashing the 40k rows of all five that passed, against 31 by the dataset's own.
  it("read the rows that pass a filter in the dataset's own rows only", async () => {
    expect(OWN_ROWS).toBeGreaterThan(VECTOR_SEARCH_TUNING.exactFilterRows);
    const { dataset, vector } = await searchedDataset();
    const filter = compileFilter({ tide: "high" }, sql.raw("r.metadata"));
    const nodes = await planOf(queryText(new SemanticSearch(dataset, vector, filter).rankSql(5)));
    const conditions = (node: PlanNode) =>
      [node.Filter, node["Index Cond"], node["Recheck Cond"]].filter(Boolean).join(" AND ");
    const filteredReadsOfRows = nodes
      .filter((node) => node["Relation Name"] === "rows" && conditions(node).includes("tide"))
      .map(conditions);
    // The probe, the graph's, the bulk build's and the backlog's sides. All but the graph's say
    // the dataset: its walk looks up each vector's row by id as it reaches it, in the graph's
    // order, which a plan of its own would not keep.
    expect(filteredReadsOfRows).toHaveLength(4);
    const withoutDataset = filteredReadsOfRows.filter(
      (read) => !read.includes(`dataset_id = '${dataset.id}'`),
    );
    expect(withoutDataset).toHaveLength(1);
  });
});
