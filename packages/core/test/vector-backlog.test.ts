import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  type BacklogMove,
  createDataset,
  deleteDataset,
  deleteDocument,
  deleteRow,
  documentFilteredSearch,
  indexVectorBacklog,
  moveBacklogRows,
  nextMoveRows,
  pendingVectorRows,
  searchRows,
  updateRow,
  upsertRows,
  writeRowsOfDocument,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { noFiles } from "./support/no-files.ts";
import { createTenant } from "./support/tenant.ts";
import { transactionCounter } from "./support/transaction-counter.ts";

const database = useFreshDatabase();

async function rowsOf<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

/**
 * The invariant the triggers keep: each of the dataset's embedded rows is in exactly one of
 * the backlog and the graph's table (in either with its current embedding), and nothing else is.
 */
async function expectVectorsConsistent(datasetId: string) {
  const [state] = await rowsOf<Record<string, number>>(sql`
    SELECT
      (SELECT count(*) FROM rows r WHERE r.dataset_id = ${datasetId} AND r.embedding IS NOT NULL)::int AS embedded,
      (SELECT count(*) FROM rows r WHERE r.dataset_id = ${datasetId} AND r.embedding IS NOT NULL
         AND (EXISTS (SELECT 1 FROM vector_backlog b WHERE b.dataset_id = r.dataset_id AND b.row_id = r.id
                      AND b.embedding = r.embedding))
           <> (EXISTS (SELECT 1 FROM indexed_vectors v WHERE v.row_id = r.id
                       AND v.dataset_id = r.dataset_id AND v.embedding = r.embedding)))::int AS placed_once,
      (SELECT count(*) FROM vector_backlog b WHERE b.dataset_id = ${datasetId})::int
        + (SELECT count(*) FROM indexed_vectors v WHERE v.dataset_id = ${datasetId})::int AS entries,
      (SELECT count(*) FROM vector_backlog b WHERE b.dataset_id = ${datasetId})::int AS waiting`);
  expect(state!.placed_once).toBe(state!.embedded);
  expect(state!.entries).toBe(state!.embedded);
  expect(await pendingVectorRows(database.db, datasetId)).toBe(state!.waiting);
}

/** The dataset's appended backlog counts, oldest first. */
async function backlogCounts(datasetId: string): Promise<number[]> {
  const found = await rowsOf<{ pending: string | number }>(
    sql`SELECT pending FROM vector_backlog_counts WHERE dataset_id = ${datasetId} ORDER BY ctid`,
  );
  return found.map((r) => Number(r.pending));
}

const text = (i: number) =>
  `note ${i}: ${["comets", "bread", "bonds", "tides", "glaciers"][i % 5]} and ${i % 13} more`;

describe("the vector backlog", () => {
  it("follows every write, and search ranks the same rows wherever they are", async () => {
    const { ctx } = await createTenant(database.db, "backlog");
    const { id } = await createDataset(
      ctx,
      { name: "v", dimensions: 32 },
      { embeddingModel: "local/hash" },
    );
    const rows = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        data: { text: text(from + i) },
        metadata: { n: from + i },
      }));
    await upsertRows(ctx, id, { document_id: "a", rows: rows(0, 30) });
    await upsertRows(ctx, id, { document_id: "b", rows: rows(30, 30) });
    await expectVectorsConsistent(id);
    expect(await pendingVectorRows(database.db, id)).toBe(60);
    const query = { query: "comets and tides", top_k: 10 };
    // Every search that ranks rows exactly (E1's rows, hybrid's keyword candidates, a
    // filter few rows pass) reads the vectors from the backlog or the graph's table.
    const everySearch = async () => ({
      semantic: await searchRows(ctx, id, query),
      hybrid: await searchRows(ctx, id, { ...query, alpha: 0.5 }),
      filtered: await searchRows(ctx, id, { ...query, filter: { n: { $gte: 50 } } }),
      documents: await documentFilteredSearch(ctx, id, {
        query: query.query,
        top_k_documents: 2,
        top_k_rows: 10,
      }),
    });
    const exact = await searchRows(ctx, id, query);
    const all = await everySearch();
    expect(all.semantic).toEqual(exact);
    expect(all.filtered.results.length).toBe(10);

    expect(await indexVectorBacklog(database.db, id, 25)).toEqual({ indexed: 25, pending: 35 });
    await expectVectorsConsistent(id);
    expect(await everySearch()).toEqual(all);
    expect(await indexVectorBacklog(database.db, id, 1000)).toEqual({ indexed: 35, pending: 0 });
    expect(await indexVectorBacklog(database.db, id, 1000)).toEqual({ indexed: 0, pending: 0 });
    await expectVectorsConsistent(id);
    expect(await everySearch()).toEqual(all);

    // A new text re-embeds the row: it leaves the graph for the backlog, and ranks by its text.
    const target = exact.results[9]!;
    const rowId = String(target.metadata.rowId);
    await updateRow(ctx, id, rowId, { data: { text: "comets and tides" } });
    await expectVectorsConsistent(id);
    expect(await pendingVectorRows(database.db, id)).toBe(1);
    const [first] = (await searchRows(ctx, id, query)).results;
    expect(first!.metadata.rowId).toBe(target.metadata.rowId);
    expect(first!.confidence).toBeCloseTo(1, 5);
    // Re-embedded again while it waits: the backlog's copy, which search ranks, follows.
    await updateRow(ctx, id, rowId, { data: { text: "glaciers and bonds" } });
    await expectVectorsConsistent(id);
    expect(await pendingVectorRows(database.db, id)).toBe(1);
    const [again] = (await searchRows(ctx, id, { query: "glaciers and bonds", top_k: 3 })).results;
    expect(again!.metadata.rowId).toBe(target.metadata.rowId);
    expect(again!.confidence).toBeCloseTo(1, 5);
    // Metadata alone keeps the row where it is.
    await indexVectorBacklog(database.db, id, 1000);
    await updateRow(ctx, id, rowId, { metadata: { x: 1 } });
    expect(await pendingVectorRows(database.db, id)).toBe(0);
    await expectVectorsConsistent(id);

    await writeRowsOfDocument(ctx, id, "a", { rows: rows(100, 5) }, "replace");
    await expectVectorsConsistent(id);
    expect(await pendingVectorRows(database.db, id)).toBe(5);
    await writeRowsOfDocument(ctx, id, "a", { rows: [{ data: { text: "" } }] }, "append");
    await expectVectorsConsistent(id);
    const [unembedded] = await rowsOf<{ id: string }>(
      sql`SELECT id::text FROM rows WHERE dataset_id = ${id} AND embedding IS NULL`,
    );
    await deleteRow(ctx, id, unembedded!.id);
    await expectVectorsConsistent(id);
    await deleteDocument(ctx, id, "b", noFiles);
    await expectVectorsConsistent(id);
    await indexVectorBacklog(database.db, id, 1000);
    await expectVectorsConsistent(id);
    const left = await searchRows(ctx, id, { ...query, top_k: 100 });
    expect(left.results.map((r) => r.data.text).sort()).toEqual(
      rows(100, 5)
        .map((r) => r.data.text)
        .sort(),
    );
  });

  it("is counted from appended changes, folded by the indexer and deleted with its dataset", async () => {
    const { ctx } = await createTenant(database.db, "backlog-counts");
    const { id } = await createDataset(
      ctx,
      { name: "c", dimensions: 16 },
      { embeddingModel: "local/hash" },
    );
    const rows = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ data: { text: text(from + i) } }));
    await upsertRows(ctx, id, { document_id: "a", rows: rows(0, 7) });
    await upsertRows(ctx, id, { document_id: "b", rows: rows(7, 5) });
    // E11 replacing "a": its 7 entries leave, 4 new rows join
    await upsertRows(ctx, id, { document_id: "a", rows: rows(20, 4) });
    expect(await backlogCounts(id)).toEqual([7, 5, -7, 4]);
    // The reading touches no backlog row: a count of them read each one with its embedding.
    // (The backend's table counters, read before and after: they may still hold earlier
    // transactions' reads not yet reported.)
    const read = await database.db.transaction(async (tx) => {
      const backlogReads = () =>
        transactionCounter(
          tx,
          sql`pg_stat_get_xact_tuples_returned('vector_backlog'::regclass)
              + pg_stat_get_xact_tuples_fetched('vector_backlog'::regclass)`,
        );
      const before = await backlogReads();
      const pending = await pendingVectorRows(tx, id);
      return { pending, touched: (await backlogReads()) - before };
    });
    expect(read).toEqual({ pending: 9, touched: 0 });

    // One row re-embedded twice while it waits: replaced in place, counted once.
    const [waiting] = await rowsOf<{ id: string }>(
      sql`SELECT id::text FROM rows WHERE dataset_id = ${id} AND document_id = 'b' LIMIT 1`,
    );
    await updateRow(ctx, id, waiting!.id, { data: { text: "a new text" } });
    await updateRow(ctx, id, waiting!.id, { data: { text: "another text" } });
    expect(await backlogCounts(id)).toEqual([7, 5, -7, 4]);

    // The indexer's move counts itself out, and its reading folds the rows into one.
    expect(await indexVectorBacklog(database.db, id, 6)).toEqual({ indexed: 6, pending: 3 });
    expect(await backlogCounts(id)).toEqual([3]);
    expect(await indexVectorBacklog(database.db, id, 100)).toEqual({ indexed: 3, pending: 0 });
    expect(await backlogCounts(id)).toEqual([]);
    await expectVectorsConsistent(id);

    await upsertRows(ctx, id, { document_id: "c", rows: rows(40, 2) });
    expect(await backlogCounts(id)).toEqual([2]);
    await deleteDataset(ctx, id, noFiles);
    expect(await backlogCounts(id)).toEqual([]);
  });

  it("sizes each move by how long the one before it took", async () => {
    const { ctx } = await createTenant(database.db, "backlog-pace");
    const { id } = await createDataset(
      ctx,
      { name: "p", dimensions: 16 },
      { embeddingModel: "local/hash" },
    );
    const rows = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ data: { text: text(from + i) } }));
    await upsertRows(ctx, id, { document_id: "slow", rows: rows(0, 100) });
    await upsertRows(ctx, id, { document_id: "quick", rows: rows(100, 100) });

    // Every move taking a second: 50 rows, then the 15 that fit in 300 ms at that pace, then
    // the fewest (10) until the call's 100 rows are moved.
    const slow: number[] = [];
    const second = (move: BacklogMove) => {
      slow.push(move.taken);
      return 1000;
    };
    expect(await indexVectorBacklog(database.db, id, 100, second)).toEqual({
      indexed: 100,
      pending: 100,
    });
    expect(slow).toEqual([50, 15, 10, 10, 10, 5]);
    // Moves taking no time: the second may take twice the first one's rows (100), and finds
    // the 50 left, which ends the call.
    const quick: number[] = [];
    const instant = (move: BacklogMove) => {
      quick.push(move.taken);
      return 0;
    };
    expect(await indexVectorBacklog(database.db, id, 200, instant)).toEqual({
      indexed: 100,
      pending: 0,
    });
    expect(quick).toEqual([50]);
    // By default a move is timed by the database: its statement's own time.
    await upsertRows(ctx, id, { document_id: "timed", rows: rows(200, 5) });
    const timed = await moveBacklogRows(database.db, id, 5);
    expect(timed).toMatchObject({ picked: 5, taken: 5 });
    expect(timed.ms).toBeGreaterThan(0);
    await expectVectorsConsistent(id);
  });

  it("paces moves to the target time, within bounds", () => {
    // 50 rows in 500 ms: 10 ms a row, so 30 rows in the target's 300 ms.
    expect(nextMoveRows(50, 500)).toBe(30);
    expect(nextMoveRows(50, 5000)).toBe(10);
    // Quick moves grow at most twofold, and to 500 rows at most.
    expect(nextMoveRows(50, 10)).toBe(100);
    expect(nextMoveRows(400, 1)).toBe(500);
    expect(nextMoveRows(100, 200)).toBe(150);
  });
});
