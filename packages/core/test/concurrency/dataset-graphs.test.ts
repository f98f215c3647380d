import { beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  indexVectorBacklog,
  type ProjectContext,
  searchRows,
  upsertRows,
} from "../../src/index.ts";
import { checkInvariants } from "../support/invariants.ts";
import { useNativeSuite } from "../support/native-suite.ts";
import { createTenant } from "../support/tenant.ts";

/**
 * Every dataset's graph vectors are a partition of `indexed_vectors` of their own
 * (docs/indexing.md#vector-search): creating a dataset attaches a new partition and must not
 * wait for, nor hold off, the searches, row writes and indexers of other datasets. One side of
 * each case stays in an open transaction; the other runs with a `lock_timeout`, so a wait
 * fails the test instead of hanging it. With every graph a partial index on one table, the
 * new index needed a SHARE lock on the whole table: it waited for every open write of any
 * dataset's graph, and held off every such write while it scanned all datasets' vectors.
 */

const suite = useNativeSuite();
let ctx: ProjectContext;
beforeAll(async () => {
  ctx = (await createTenant(suite.fresh.db, "graphs")).ctx;
});

/** One session that gives up on any lock it waits for longer than `timeout`. */
async function impatientSession(timeout = "3s"): Promise<ProjectContext> {
  const { db, pool } = suite.connect(1);
  await pool.query(`SET lock_timeout = '${timeout}'`);
  return { ...ctx, db };
}

/** A session inside an open transaction, for `run` to leave uncommitted. */
async function openTransaction() {
  const { pool } = suite.connect(1);
  const client = await pool.connect();
  await client.query("BEGIN");
  return {
    query: (text: string, params?: unknown[]) => client.query(text, params),
    async rollback() {
      await client.query("ROLLBACK");
      client.release();
    },
  };
}

/** A dataset with `count` rows, all of them in its graph. */
async function indexedDataset(name: string, count: number) {
  const dataset = await createDataset(ctx, { name }, { embeddingModel: "local/hash" });
  const written = await upsertRows(ctx, dataset.id, {
    document_id: "d",
    rows: Array.from({ length: count }, (_, i) => ({
      data: { text: `harbor lights ${i} over the comet's wake` },
    })),
  });
  await indexVectorBacklog(suite.fresh.db, dataset.id, count);
  return { datasetId: dataset.id, rowIds: written.rows.map((r) => r.id) };
}

describe("a dataset's graph partition", () => {
  it("is created while another dataset's graph holds uncommitted writes", async () => {
    const busy = await indexedDataset("busy", 4);
    const writer = await openTransaction();
    try {
      // The row leaves the busy dataset's graph (its trigger deletes from `indexed_vectors`),
      // and the transaction stays open.
      await writer.query("DELETE FROM rows WHERE id = $1", [busy.rowIds[0]]);
      const created = await createDataset(
        await impatientSession(),
        { name: "created meanwhile" },
        { embeddingModel: "local/hash" },
      );
      const [graph] = await suite.fresh.sql<{ attached: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = 'indexed_vectors'::regclass
             AND c.relname = quarry_vector_partition_name($1)) AS attached`,
        [created.id],
      );
      expect(graph?.attached).toBe(true);
    } finally {
      await writer.rollback();
    }
    expect(await checkInvariants(suite.fresh, { datasetIds: [busy.datasetId] })).toEqual([]);
  });

  it("is attached without holding off other datasets' searches, writes and indexing", async () => {
    const other = await indexedDataset("other", 6);
    const creator = await openTransaction();
    try {
      // What a dataset's creation runs (createSearchIndexes), left uncommitted.
      await creator.query("SELECT quarry_create_vector_graph($1, 384, 'halfvec', 16, 64)", [
        "ds_being_created",
      ]);
      const session = await impatientSession();
      const { results } = await searchRows(session, other.datasetId, {
        query: "comet",
        top_k: 3,
      });
      expect(results).toHaveLength(3);
      // A replacement takes the document's rows out of the graph; the indexer puts the new ones in.
      await upsertRows(session, other.datasetId, {
        document_id: "d",
        rows: [{ data: { text: "a lantern on the pier" } }],
      });
      expect(await indexVectorBacklog(session.db, other.datasetId, 10)).toEqual({
        indexed: 1,
        pending: 0,
      });
    } finally {
      await creator.rollback();
    }
    expect(await checkInvariants(suite.fresh, { datasetIds: [other.datasetId] })).toEqual([]);
    // Rolled back with its transaction: no partition without a dataset.
    const [left] = await suite.fresh.sql<{ partition: string | null }>(
      "SELECT to_regclass(quarry_vector_partition_name('ds_being_created'))::text AS partition",
    );
    expect(left?.partition).toBe(null);
  });
});
