import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDataset, indexVectorBacklog, upsertRows } from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";
import { transactionCounter } from "./support/transaction-counter.ts";

// A file of its own: the statistics it sets up are the backlog table's, which other tests' rows
// would change.
const database = useFreshDatabase();

/**
 * How many backlog entries the transaction read so far: those its scans of the table returned
 * and those its primary key's index returned (an index scan counts its reads there).
 */
const backlogReads = (tx: Database) =>
  transactionCounter(
    tx,
    sql`pg_stat_get_xact_tuples_returned('vector_backlog'::regclass)
        + pg_stat_get_xact_tuples_fetched('vector_backlog'::regclass)
        + pg_stat_get_xact_tuples_returned('vector_backlog_dataset_id_row_id_pk'::regclass)`,
  );

describe("the vector indexer on a backlog its statistics call empty", () => {
  it("reads only the entries it moves, not the backlog once per entry", async () => {
    const { ctx } = await createTenant(database.db, "backlog-statistics");
    const { id } = await createDataset(
      ctx,
      // Entries of a real model's size (~1.5 kB each), so that the backlog spans hundreds of
      // pages, as a bulk load's does: over a few pages, reading it whole once is the cheaper plan.
      { name: "s", dimensions: 384 },
      { embeddingModel: "local/hash" },
    );
    const rows = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ data: { text: `note ${from + i} on tides` } }));

    // As in a stack's first minutes: a few rows pass through the backlog, which a vacuum that
    // keeps its pages (the indexer's own, TRUNCATE false) then records as one page of no rows.
    await upsertRows(ctx, id, { document_id: "first", rows: rows(0, 5) });
    expect(await indexVectorBacklog(database.db, id, 100)).toEqual({ indexed: 5, pending: 0 });
    await database.fresh.sql("VACUUM (TRUNCATE false) vector_backlog");
    const [recorded] = await database.fresh.sql<{ reltuples: number; relpages: number }>(
      "SELECT reltuples, relpages FROM pg_class WHERE relname = 'vector_backlog'",
    );
    expect(recorded).toEqual({ reltuples: 0, relpages: 1 });

    // A bulk load then fills it faster than its statistics follow.
    for (let batch = 0; batch < 15; batch++) {
      await upsertRows(ctx, id, { document_id: `load-${batch}`, rows: rows(100 * batch, 100) });
    }

    const take = 50;
    const moved = await database.db.transaction(async (tx) => {
      const before = await backlogReads(tx);
      const progress = await indexVectorBacklog(tx, id, take);
      return { ...progress, reads: (await backlogReads(tx)) - before };
    });
    expect(moved.indexed).toBe(take);
    expect(moved.pending).toBe(1500 - take);
    // Picking reads each moved entry off the primary key, and deleting finds it by its tuple id.
    // Deleted by a join to the picked entries, planned for an empty backlog, the move read all
    // 1,500 entries off the primary key again (and compared each with every picked one).
    expect(moved.reads).toBeLessThanOrEqual(3 * take);
  });
});
