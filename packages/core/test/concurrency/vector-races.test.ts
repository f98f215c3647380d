import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  deleteRow,
  foldPendingVectorRows,
  indexVectorBacklog,
  type ProjectContext,
  updateRow,
  upsertRows,
} from "../../src/index.ts";
import { checkInvariants } from "../support/invariants.ts";
import { useNativeSuite } from "../support/native-suite.ts";
import { createTenant } from "../support/tenant.ts";

/**
 * The vector graph under the two races the mix only hits by chance: a row updated (E8) or
 * deleted (E14) while an indexer is moving it from the backlog into the graph. The interleaving
 * is forced with a pause point that exists only in this test database: a row trigger on
 * `vector_backlog` that sleeps when the deleting session asked for it (`quarry.test_pause`), so
 * the indexer's statement has taken its snapshot and its backlog entries and then waits, while
 * the writer runs and commits. Afterwards the graph must hold the row's current embedding, or
 * nothing for a deleted row.
 */

const suite = useNativeSuite();
let ctx: ProjectContext;
beforeAll(async () => {
  ctx = (await createTenant(suite.fresh.db, "races")).ctx;
  // One pause function, its setting and whether it pauses once per session named by each
  // trigger: an indexer's backlog deletes pause on every row, a fold of the counts on its first.
  await suite.fresh.sql(`
    CREATE FUNCTION test_pause_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF coalesce(current_setting(TG_ARGV[0], true), '') <> '' THEN
        PERFORM pg_sleep(current_setting(TG_ARGV[0])::float8);
        IF TG_ARGV[1] = 'once' THEN PERFORM set_config(TG_ARGV[0], '', false); END IF;
      END IF;
      RETURN OLD;
    END
    $fn$`);
  await suite.fresh.sql(`CREATE TRIGGER test_pause_backlog_delete BEFORE DELETE ON vector_backlog
    FOR EACH ROW EXECUTE FUNCTION test_pause_delete('quarry.test_pause', 'every row')`);
  await suite.fresh.sql(`CREATE TRIGGER test_pause_count_delete BEFORE DELETE ON vector_backlog_counts
    FOR EACH ROW EXECUTE FUNCTION test_pause_delete('quarry.test_pause_counts', 'once')`);
});

/** An indexer whose deletes from the backlog pause `seconds` each (one session: `max` 1). */
async function pausedIndexer(seconds: number) {
  const { db, pool } = suite.connect(1);
  await pool.query(`SET quarry.test_pause = '${seconds}'`);
  return db;
}

async function oneBackloggedRow(name: string) {
  const dataset = await createDataset(ctx, { name }, { embeddingModel: "local/hash" });
  const written = await upsertRows(ctx, dataset.id, {
    document_id: "d",
    rows: [{ data: { text: "the comet over the harbor" } }],
  });
  return { datasetId: dataset.id, rowId: written.rows[0]!.id };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the vector graph while an indexer moves a row", () => {
  it("holds the row's current embedding when E8 re-embeds it meanwhile", async () => {
    const { datasetId, rowId } = await oneBackloggedRow("updated");
    const indexer = await pausedIndexer(0.6);
    const indexing = indexVectorBacklog(indexer, datasetId, 10);
    await sleep(200); // the indexer is inside its statement now
    const writer = suite.connect(1);
    await updateRow({ ...ctx, db: writer.db }, datasetId, String(rowId), {
      data: { text: "a violin in the orchard" },
    });
    await indexing;
    await indexVectorBacklog(suite.fresh.db, datasetId, 10); // whatever the E8 put back in the backlog
    expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
  });

  it("holds nothing of a row E14 deletes meanwhile", async () => {
    const { datasetId, rowId } = await oneBackloggedRow("deleted");
    const indexer = await pausedIndexer(0.6);
    const indexing = indexVectorBacklog(indexer, datasetId, 10);
    await sleep(200);
    const writer = suite.connect(1);
    await deleteRow({ ...ctx, db: writer.db }, datasetId, String(rowId));
    await indexing;
    expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
  });
});

describe("the backlog's counts while the dataset is deleted", () => {
  it("are folded before the deletion or not at all: no deadlock, nothing left behind", async () => {
    const dataset = await createDataset(ctx, { name: "folded" }, { embeddingModel: "local/hash" });
    for (const [document, n] of [
      ["a", 3],
      ["b", 2],
    ] as const) {
      await upsertRows(ctx, dataset.id, {
        document_id: document,
        rows: Array.from({ length: n }, (_, i) => ({ data: { text: `${document} comet ${i}` } })),
      });
    }
    const folder = suite.connect(1);
    await folder.pool.query("SET quarry.test_pause_counts = '0.6'");
    const folding = foldPendingVectorRows(folder.db, dataset.id);
    await sleep(200); // the fold is inside its DELETE now, holding the first count row
    // deleteDataset's statements, without its retry on contention: a deadlock must show.
    const deleter = suite.connect(1);
    const deleting = deleter.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT id FROM datasets WHERE id = ${dataset.id} FOR UPDATE`);
      await tx.execute(sql`DELETE FROM rows WHERE dataset_id = ${dataset.id}`);
      await tx.execute(sql`DELETE FROM documents WHERE dataset_id = ${dataset.id}`);
      await tx.execute(sql`DELETE FROM datasets WHERE id = ${dataset.id}`);
    });
    const [folded, deleted] = await Promise.allSettled([folding, deleting]);
    expect(folded).toEqual({ status: "fulfilled", value: 5 });
    expect(deleted.status).toBe("fulfilled");
    const left = await suite.fresh.sql(
      "SELECT pending FROM vector_backlog_counts WHERE dataset_id = $1",
      [dataset.id],
    );
    expect(left).toEqual([]);
  });
});
