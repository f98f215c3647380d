import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDataset, indexVectorBacklog, nextGraphRows, upsertRows } from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { engineGraph } from "./support/engine-graph.ts";
import { createTenant } from "./support/tenant.ts";
import { transactionCounter } from "./support/transaction-counter.ts";

// A file of its own: it reads the planner statistics of one dataset's partition.
const database = useFreshDatabase();

interface PartitionStatistics {
  reltuples: number;
  /** `dataset_id`'s distinct values as the statistics have them (-1: every row unique) */
  n_distinct: number | null;
}

async function statistics(datasetId: string): Promise<PartitionStatistics | undefined> {
  const [row] = await database.fresh.sql<PartitionStatistics>(
    `SELECT c.reltuples::float8 AS reltuples,
            (SELECT s.n_distinct::float8 FROM pg_stats s
             WHERE s.tablename = c.relname AND s.attname = 'dataset_id') AS n_distinct
     FROM pg_class c WHERE c.relname = quarry_vector_partition_name($1)`,
    [datasetId],
  );
  return row;
}

/** The partition's rows the transaction read so far, by scans and by index fetches. */
const partitionReads = (tx: Database, datasetId: string) =>
  transactionCounter(
    tx,
    sql`pg_stat_get_xact_tuples_returned(quarry_vector_partition_name(${datasetId})::regclass)
        + pg_stat_get_xact_tuples_fetched(quarry_vector_partition_name(${datasetId})::regclass)`,
  );

describe("a dataset's graph partition as it grows", () => {
  it("is analyzed again once its first statistics (of one vector) no longer describe it", async () => {
    const { ctx } = await createTenant(database.db, "graph-statistics");
    const { id } = await createDataset(
      ctx,
      // A real model's size, so that the partition spans pages as a real one does.
      { name: "g", dimensions: 384 },
      { embeddingModel: "local/hash", graph: engineGraph() },
    );
    // Native autovacuum would otherwise analyze or vacuum the partition on its own, between the
    // indexer's moves or after its analysis, and its counts are a sample's or an extrapolation's
    // (CI saw 1,754 of 2,001); what is tested is the indexer's own analysis.
    const [named] = await database.fresh.sql<{ partition: string }>(
      "SELECT quarry_vector_partition_name($1) AS partition",
      [id],
    );
    await database.fresh.sql(`ALTER TABLE "${named?.partition}" SET (autovacuum_enabled = false)`);
    const rows = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ data: { text: `note ${from + i} on the tides` } }));

    // A dataset's first upload, a paragraph: its graph's first statistics are of one vector.
    await upsertRows(ctx, id, { document_id: "first", rows: rows(0, 1) });
    await indexVectorBacklog(database.db, id, 100);
    expect(await statistics(id)).toMatchObject({ reltuples: 1, n_distinct: -1 });

    // Then a large upload. With the statistics of one vector, `dataset_id` looks unique, so the
    // count of a bulk build's vectors (0: none) that every GET of the dataset makes was planned
    // for one row and read the whole partition through its key.
    for (let batch = 0; batch < 6; batch++) {
      await upsertRows(ctx, id, { document_id: `load-${batch}`, rows: rows(1 + 100 * batch, 100) });
    }
    await indexVectorBacklog(database.db, id, 1000);
    const grown = await statistics(id);
    expect(grown?.n_distinct).toBe(1);
    expect(grown?.reltuples).toBe(601);

    // Twice its pages and more: analyzed again.
    for (let batch = 6; batch < 20; batch++) {
      await upsertRows(ctx, id, { document_id: `load-${batch}`, rows: rows(1 + 100 * batch, 100) });
    }
    await indexVectorBacklog(database.db, id, 2000);
    expect((await statistics(id))?.reltuples).toBe(2001);

    const read = await database.db.transaction(async (tx) => {
      const before = await partitionReads(tx, id);
      const newer = await nextGraphRows(tx, { id, graphGeneration: 0 });
      return { newer, reads: (await partitionReads(tx, id)) - before };
    });
    expect(read.newer).toBe(0);
    // The generation index finds none; read through the key, all 2,001 vectors were.
    expect(read.reads).toBeLessThanOrEqual(10);
  });
});
