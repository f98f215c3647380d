import type { Database } from "@quarry/db";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDataset, moveBacklogRows, upsertRows } from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";
import { transactionCounter } from "./support/transaction-counter.ts";

// A file of its own: the plan under test follows the statistics of `rows` and the backlog,
// which other tests' rows would change.
const database = useFreshDatabase();

/** How many entries of `rows`' primary key the transaction read so far. */
const rowKeyReads = (tx: Database) =>
  transactionCounter(tx, sql`pg_stat_get_xact_tuples_returned('rows_pkey'::regclass)`);

describe("the vector indexer's moves as the graph grows", () => {
  it("find the oldest waiting rows without walking past the rows moved before", async () => {
    const { ctx } = await createTenant(database.db, "backlog-order");
    const { id } = await createDataset(
      ctx,
      { name: "o", dimensions: 384 },
      // pgvector's cheapest graph: what is measured here is the walk to the rows, not the graph.
      { embeddingModel: "local/hash", graph: { m: 4, efConstruction: 8 } },
    );
    for (let batch = 0; batch < 30; batch++) {
      await upsertRows(ctx, id, {
        document_id: `load-${batch}`,
        rows: Array.from({ length: 100 }, (_, i) => ({
          data: { text: `note ${100 * batch + i} on tides and harbours` },
        })),
      });
    }
    // Statistics taken as a bulk load's end leaves them: every row waits for the graph. With
    // them, a move joined on `r.id = b.row_id` walked `rows` in id order from the dataset's
    // first row, probing the backlog for each, rows moved long ago included.
    await database.fresh.sql("ANALYZE rows");
    await database.fresh.sql("ANALYZE vector_backlog");
    let moved = 0;
    while (moved < 2000) moved += (await moveBacklogRows(database.db, id, 250)).taken;

    const take = 50;
    const move = await database.db.transaction(async (tx) => {
      const before = await rowKeyReads(tx);
      const result = await moveBacklogRows(tx, id, take);
      return { ...result, reads: (await rowKeyReads(tx)) - before };
    });
    expect(move.taken).toBe(take);
    // One lookup by id per row moved (the old plan read the 2,000 moved before as well).
    expect(move.reads).toBeLessThanOrEqual(3 * take);
  });
});
