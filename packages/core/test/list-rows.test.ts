import type { Database } from "@quarry/db";
import { rows } from "@quarry/db";
import { asc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter } from "../src/filter/compile-filter.ts";
import {
  createDataset,
  createDocument,
  deleteDataset,
  deleteDocument,
  deleteRow,
  listRows,
  type ProjectContext,
  type RowsPage,
  type UserMetadata,
  updateRow,
  upsertRows,
  writeRowsOfDocument,
} from "../src/index.ts";
import { pageOfTermMatches, singleEquality } from "../src/rows/equality-page.ts";
import {
  filterColumn,
  matchingRows,
  pageOfFewMatches,
  pageOfManyMatches,
} from "../src/rows/filtered-page.ts";
import { pageOfRowId } from "../src/rows/service-key-page.ts";
import { pageOfRows } from "../src/rows/unfiltered-page.ts";
import { type FreshDatabase, freshDatabase } from "./support/database.ts";
import { noFiles } from "./support/no-files.ts";
import { type PlanNode, planNodes } from "./support/plan-nodes.ts";
import { createTenant } from "./support/tenant.ts";
import { transactionCounter } from "./support/transaction-counter.ts";

/**
 * E6 with a filter reads what triggers on `rows` keep beside it: the narrow copy of the rows'
 * metadata (`row_filter_metadata`) and its equality terms (`row_filter_terms`). These tests
 * hold both to the rows through every kind of write, hold E6's answers to the same filter
 * evaluated on `rows` itself, and prove the plans: matches come from the terms' primary key or
 * the copy's GIN index, and `rows` is read for the page's rows only.
 */
let db: Database;
let fresh: FreshDatabase;
beforeAll(async () => {
  fresh = await freshDatabase();
  db = fresh.db;
});
afterAll(() => fresh?.close());

const all = { offset: 0, pageSize: 1000 };
const noSources = {
  fetchUrl: async () => {
    throw new Error("no fetch");
  },
  files: noFiles,
  enqueue: async () => {},
};

async function setup(name: string) {
  const { ctx } = await createTenant(db, name);
  const dataset = await createDataset(ctx, { name }, { embeddingModel: "local/hash" });
  return { ctx, datasetId: dataset.id };
}

async function query<T>(text: string, params: unknown[] = []): Promise<T[]> {
  return fresh.sql<T>(text, params);
}

/** The copy and the terms, each beside what the rows say they must be, for the whole database. */
async function expectCopyMatchesRows() {
  const copy = await query(
    "select dataset_id, row_id::int as id, metadata from row_filter_metadata order by row_id",
  );
  const source = await query("select dataset_id, id::int as id, metadata from rows order by id");
  expect(copy).toEqual(source);
  const terms = await query(
    "select term_key, row_id::int as id from row_filter_terms order by 1, 2",
  );
  const expected = await query(`select k as term_key, r.id::int as id
    from rows r cross join lateral quarry_filter_term_keys(r.dataset_id, r.metadata) k order by 1, 2`);
  expect(terms).toEqual(expected);
}

/**
 * E6's ids for a filter (none: unfiltered), and the ids the same filter selects when evaluated
 * on `rows`, past the page's `after`.
 */
async function idsBothWays(
  ctx: ProjectContext,
  datasetId: string,
  filter: unknown,
  page: RowsPage = all,
) {
  const listed = (await listRows(ctx, datasetId, page, filter)).map((r) => r.id);
  const matches = filter === undefined ? sql`true` : compileFilter(filter, sql`${rows.metadata}`);
  const direct = await db
    .select({ id: rows.id })
    .from(rows)
    .where(sql`${rows.datasetId} = ${datasetId} and ${rows.id} > ${page.after ?? 0} and ${matches}`)
    .orderBy(asc(rows.id))
    .offset(page.offset)
    .limit(page.pageSize);
  return { listed, direct: direct.map((r) => r.id) };
}

describe("the filter copy of row metadata and its terms", () => {
  it("recognises single equalities, and only them", () => {
    expect(singleEquality({ k: "v" })).toEqual({ key: "k", value: "v" });
    expect(singleEquality({ k: { $eq: 7 } })).toEqual({ key: "k", value: 7 });
    expect(singleEquality({ k: false })).toEqual({ key: "k", value: false });
    for (const other of [
      {},
      { a: 1, b: 2 },
      { k: { $eq: 1, $ne: 2 } },
      { k: { $in: [1] } },
      { k: { $ne: 1 } },
      { $or: [{ k: 1 }] },
      { k: ["a"] },
    ]) {
      expect(singleEquality(other), JSON.stringify(other)).toBeUndefined();
    }
  });

  it("takes the general path when a term's rows do not all match (a key collision)", async () => {
    const { ctx, datasetId } = await setup("collision");
    const written = await upsertRows(ctx, datasetId, {
      rows: ["drama", "comedy", "drama"].map((genre) => ({
        data: { text: genre },
        metadata: { genre },
      })),
    });
    const comedy = written.rows[1]!.id;
    // A comedy row filed under drama's key, as a collision of two terms' keys would file it.
    const misfiled = `(quarry_filter_term_key($1, 'genre', '"drama"'), $2)`;
    await query(`insert into row_filter_terms (term_key, row_id) values ${misfiled}`, [
      datasetId,
      comedy,
    ]);
    try {
      const { listed, direct } = await idsBothWays(ctx, datasetId, { genre: "drama" });
      expect(listed).toEqual([written.rows[0]!.id, written.rows[2]!.id]);
      expect(listed).toEqual(direct);
    } finally {
      await query(`delete from row_filter_terms where (term_key, row_id) = ${misfiled}`, [
        datasetId,
        comedy,
      ]);
    }
  });

  it("follows every write of rows: E11, E13, E12, E8, E14, document and dataset deletes", async () => {
    const one = await setup("copy-one");
    const two = await setup("copy-two");
    const rowsOf = (tag: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        data: { text: `${tag} ${i}` },
        metadata: { tag, i, tags: [tag, i % 2 ? "odd" : "even"] },
      }));
    await upsertRows(one.ctx, one.datasetId, { document_id: "a", rows: rowsOf("a", 4) });
    await upsertRows(two.ctx, two.datasetId, { document_id: "a", rows: rowsOf("x", 3) });
    await expectCopyMatchesRows();
    await writeRowsOfDocument(one.ctx, one.datasetId, "a", { rows: rowsOf("b", 2) }, "append");
    await expectCopyMatchesRows();
    const replaced = await writeRowsOfDocument(
      one.ctx,
      one.datasetId,
      "a",
      { rows: rowsOf("c", 3) },
      "replace",
    );
    await expectCopyMatchesRows();
    const [first, second, third] = replaced.rows;
    await updateRow(one.ctx, one.datasetId, String(first!.id), { metadata: { tag: "changed" } });
    await updateRow(one.ctx, one.datasetId, String(second!.id), { data: { text: "text only" } });
    await expectCopyMatchesRows();
    expect(
      (await listRows(one.ctx, one.datasetId, all, { tag: "changed" })).map((r) => r.id),
    ).toEqual([first!.id]);
    expect(await listRows(one.ctx, one.datasetId, all, { tag: "c", i: 0 })).toEqual([]);
    await deleteRow(one.ctx, one.datasetId, String(third!.id));
    await expectCopyMatchesRows();
    await upsertRows(one.ctx, one.datasetId, { document_id: "gone", rows: rowsOf("g", 2) });
    await deleteDocument(one.ctx, one.datasetId, "gone", noFiles);
    await expectCopyMatchesRows();
    await deleteDataset(two.ctx, two.datasetId, noFiles);
    await expectCopyMatchesRows();
    expect(
      await query("select 1 from row_filter_metadata where dataset_id = $1", [two.datasetId]),
    ).toEqual([]);
  });

  it("answers every operator exactly as the filter does on rows", async () => {
    const { ctx, datasetId } = await setup("semantics");
    const metadata: UserMetadata[] = [
      { genre: "drama", year: 2020, rating: 4.5, tags: ["a", "b"], draft: false },
      { genre: "comedy", year: 2019, rating: 3, tags: ["b"], draft: true },
      { genre: "drama", year: "2020", tags: [] },
      { year: 2021, author: "O'Brien", tags: ["drama"] },
      { genre: "Drama", title: 'é " \\ 🎬', long: "x".repeat(4096), year: 2020.5 },
      // A list's repeated string is one term (row_filter_terms' key is term and row).
      { genre: "horror", tags: ["c", "a", "c"] },
      {},
    ];
    for (let d = 0; d < 3; d++) {
      await upsertRows(ctx, datasetId, {
        document_id: `doc-${d}`,
        rows: metadata.map((m, i) => ({ data: { text: `doc ${d} row ${i}` }, metadata: m })),
      });
    }
    // Documents with a url, as E5 takes them (content, and the url it came from): two of one
    // url (the general path answers it), one of its own (its documentId term does).
    const url = "https://example.com/essay";
    const note = "https://example.com/note";
    for (const [id, from] of [
      ["essay", url],
      ["essay-again", url],
      ["note", note],
    ] as const) {
      const content = `An essay ${id}. `.repeat(30);
      await createDocument(
        ctx,
        datasetId,
        { id, url: from, content, chunk_size: 100, chunk_overlap: 0 },
        noSources,
      );
    }
    // Stored by hand, as a raw writer could: 7.0 is the number 7 to `@>`, and so to E6.
    await db.execute(sql`update rows set metadata = metadata || '{"score": 7.0}'
      where dataset_id = ${datasetId} and metadata ->> 'genre' = 'comedy'`);
    const filters: unknown[] = [
      {},
      { genre: "drama" },
      { genre: { $eq: "drama" } },
      { genre: "Drama" },
      { tags: "drama" },
      { tags: { $eq: "b" } },
      { author: "O'Brien" },
      { title: 'é " \\ 🎬' },
      { long: "x".repeat(4096) },
      { draft: false },
      { draft: "false" },
      { rating: 4.5 },
      { score: 7 },
      { score: "7" },
      { year: 2020.5 },
      { year: 2020, genre: "drama" },
      { documentId: "doc-1" },
      { nothing: "here" },
      { year: 2020 },
      { year: "2020" },
      { tags: "b" },
      { tags: "a" },
      { tags: "c" },
      { genre: { $ne: "drama" } },
      { tags: { $nin: ["a"] } },
      { year: { $gt: 2019, $lt: 2021 } },
      { genre: { $in: ["comedy", "horror"] } },
      { year: { $in: Array.from({ length: 100 }, (_, i) => 1950 + i) } },
      { author: { $exists: true } },
      { $or: [{ draft: true }, { rating: { $gte: 4 } }] },
      { $and: [{ documentId: "doc-1" }, { genre: { $not: { $eq: "drama" } } }] },
      { genre: { $in: [] } },
      // the service keys without terms (service-key-page.ts)
      { documentId: "essay" },
      { documentId: { $eq: "doc-2" } },
      { documentId: "nowhere" },
      { documentId: 1 },
      { url },
      { url: { $eq: url } },
      { url: note },
      { url: "https://example.com/other" },
      { url: true },
      { url, documentId: "essay-again" },
      { chunk: 0 },
      { chunk: { $eq: 2 } },
      { chunk: "0" },
    ];
    // A page after a row: the ninth row (document 1's second), or past every row.
    const ids = (await listRows(ctx, datasetId, all)).map((r) => r.id);
    const [first, ninth] = [ids[0]!, ids[8]!];
    filters.push(
      { rowId: ninth },
      { rowId: { $eq: first } },
      { rowId: String(ninth) },
      { rowId: ninth + 0.5 },
      { rowId: false },
      { rowId: 2 ** 60 },
      { rowId: ninth, documentId: "doc-1" },
    );
    const afters = [ids[8]!, ids.at(-1)!];
    let pagesWithRowsAfter = 0;
    for (const filter of [undefined, ...filters]) {
      const label = JSON.stringify(filter) ?? "no filter";
      const { listed, direct } = await idsBothWays(ctx, datasetId, filter);
      expect(listed, label).toEqual(direct);
      const paged = await idsBothWays(ctx, datasetId, filter, { offset: 2, pageSize: 3 });
      expect(paged.listed, `${label} paged`).toEqual(paged.direct);
      for (const after of afters) {
        const next = await idsBothWays(ctx, datasetId, filter, { offset: 0, pageSize: 4, after });
        expect(next.listed, `${label} after ${after}`).toEqual(next.direct);
        if (next.listed.length > 0) pagesWithRowsAfter++;
        const skipped = { offset: 1, pageSize: 2, after };
        const both = await idsBothWays(ctx, datasetId, filter, skipped);
        expect(both.listed, `${label} offset after ${after}`).toEqual(both.direct);
      }
    }
    // Pages after the ninth row are not all empty, so the comparisons above compared rows.
    expect(pagesWithRowsAfter).toBeGreaterThan(filters.length / 2);
    // The mirrored keys' filters found their rows: both essays' by url, one row by its id.
    const byUrl = await listRows(ctx, datasetId, all, { url });
    expect(new Set(byUrl.map((r) => r.document_id))).toEqual(new Set(["essay", "essay-again"]));
    expect(byUrl.length).toBeGreaterThan(4);
    const firsts = await listRows(ctx, datasetId, all, { chunk: 0 });
    expect(firsts.map((r) => r.document_id)).toEqual(["essay", "essay-again", "note"]);
    const ofNote = await listRows(ctx, datasetId, all, { url: note });
    expect(ofNote.length).toBeGreaterThan(2);
    expect(ofNote.every((r) => r.document_id === "note")).toBe(true);
    expect((await listRows(ctx, datasetId, all, { rowId: ninth })).map((r) => r.id)).toEqual([
      ninth,
    ]);
  });
});

/** EXPLAIN ANALYZE of a statement exactly as drizzle sends it; its nodes, flattened. */
async function planOf(
  statement: { toSQL(): { sql: string; params: unknown[] } },
  { verbose = false } = {},
) {
  const { sql: text, params } = statement.toSQL();
  const [row] = await query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
    `explain (analyze, ${verbose ? "verbose, " : ""}format json) ${text}`,
    params,
  );
  return planNodes(row!);
}

/** How many rows each plan node on `rows` produced, and through which access path. */
function readsOfRows(nodes: PlanNode[]) {
  return nodes
    .filter((n) => n["Relation Name"] === "rows")
    .map((n) => ({
      node: `${n["Node Type"]} ${n["Index Name"] ?? ""}`.trim(),
      rows: n["Actual Rows"] * n["Actual Loops"],
    }));
}

describe("E6 pages at 100k rows", () => {
  let ctx: ProjectContext;
  let datasetId: string;
  beforeAll(async () => {
    ({ ctx, datasetId } = await setup("scale"));
    await db.execute(
      sql`insert into documents (project_id, dataset_id, id, status, metadata) values (${ctx.projectId}, ${datasetId}, 'bulk', 'ready', '{}')`,
    );
    await db.execute(sql`
      insert into rows (project_id, dataset_id, document_id, data, metadata)
      select ${ctx.projectId}, ${datasetId}, 'bulk',
             jsonb_build_object('text', 'row ' || g, 'body', repeat('lorem ipsum ', 40)),
             jsonb_build_object('bucket', g % 100, 'documentId', 'bulk')
      from generate_series(1, 100000) g`);
  });

  it("pages a selective filter in id order, and a broad one too", async () => {
    for (const page of [
      { offset: 0, pageSize: 100 },
      { offset: 950, pageSize: 100 },
    ]) {
      const { listed, direct } = await idsBothWays(ctx, datasetId, { bucket: 7 }, page);
      expect(listed).toHaveLength(page.offset === 0 ? 100 : 50);
      expect(listed).toEqual(direct);
    }
    // A broad filter overflows the match set and is served in id order all the same.
    const broad = await listRows(
      ctx,
      datasetId,
      { offset: 20_000, pageSize: 5 },
      { bucket: { $ne: 7 } },
    );
    expect(broad.map((r) => r.data.text)).toEqual([
      "row 20203",
      "row 20204",
      "row 20205",
      "row 20206",
      "row 20208",
    ]);
  });

  it("pages after a row id on every path, deep in the dataset as at its start", async () => {
    const [middle] = await db
      .select({ id: rows.id })
      .from(rows)
      .where(sql`${rows.datasetId} = ${datasetId}`)
      .orderBy(asc(rows.id))
      .offset(50_000)
      .limit(1);
    const after = middle!.id;
    // Unfiltered, a single equality, a selective filter (the match set), a broad one (the walk).
    for (const filter of [
      undefined,
      { bucket: 7 },
      { bucket: { $in: [7] } },
      { bucket: { $ne: 7 } },
    ]) {
      for (const page of [
        { offset: 0, pageSize: 100, after },
        { offset: 300, pageSize: 20, after },
      ]) {
        const { listed, direct } = await idsBothWays(ctx, datasetId, filter, page);
        expect(listed, JSON.stringify({ filter, page })).toHaveLength(page.pageSize);
        expect(listed, JSON.stringify({ filter, page })).toEqual(direct);
      }
    }
  });

  // PGlite never has statistics (no autovacuum); Neon has them: both plans must hold.
  for (const statistics of ["without", "with"] as const) {
    it(`reads a page after a deep row id as it reads the first, off the index (${statistics} statistics)`, async () => {
      if (statistics === "with") await db.execute(sql`vacuum analyze`);
      const [middle] = await query<{ id: number }>(
        "select id::int as id from rows where dataset_id = $1 order by id offset 50000 limit 1",
        [datasetId],
      );
      const page = { offset: 0, pageSize: 100, after: middle!.id };
      // No step of either plan looks at more than the page (rows it returned, and rows it
      // read and dropped): the index range starts at the id.
      const unfiltered = await planOf(pageOfRows(ctx, datasetId, page));
      const equality = await planOf(
        pageOfTermMatches(
          ctx,
          datasetId,
          singleEquality({ bucket: 7 })!,
          compileFilter({ bucket: 7 }, sql`${rows.metadata}`),
          page,
        ),
      );
      for (const nodes of [unfiltered, equality]) {
        const large = nodes.filter(
          (n) =>
            (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0)) * n["Actual Loops"] >
            page.pageSize,
        );
        expect(large.map((n) => `${n["Node Type"]} ${n["Index Name"] ?? ""}`)).toEqual([]);
      }
      expect(readsOfRows(unfiltered)).toContainEqual({ node: "Index Scan rows_pkey", rows: 100 });
    });

    // (`{url}` reads its document's `documentId` term: the plan of the term test below.)
    it(`reads the page of a rowId off the primary key alone (${statistics} statistics)`, async () => {
      if (statistics === "with") await db.execute(sql`vacuum analyze`);
      const [middle] = await query<{ id: number }>(
        "select id::int as id from rows where dataset_id = $1 order by id offset 50000 limit 1",
        [datasetId],
      );
      const filter = { rowId: middle!.id };
      const onRows = compileFilter(filter, sql`${rows.metadata}`);
      const page = { offset: 0, pageSize: 100 };
      const nodes = await planOf(pageOfRowId(ctx, datasetId, middle!.id, onRows, page));
      expect(nodes.map((n) => n["Node Type"])).not.toContain("Seq Scan");
      expect(readsOfRows(nodes)).toEqual([{ node: "Index Scan rows_pkey", rows: 1 }]);
    });

    it(`skips to a deep unfiltered page over ids alone and reads only the page's rows whole (${statistics} statistics)`, async () => {
      if (statistics === "with") await db.execute(sql`vacuum analyze`);
      const page = { offset: 50_000, pageSize: 100 };
      const listed = await listRows(ctx, datasetId, page);
      const direct = await db
        .select({ id: rows.id })
        .from(rows)
        .where(sql`${rows.datasetId} = ${datasetId}`)
        .orderBy(asc(rows.id))
        .offset(page.offset)
        .limit(page.pageSize);
      expect(listed.map((r) => r.id)).toEqual(direct.map((r) => r.id));
      expect(listed[0]!.data.text).toBe("row 50001");
      // Walking the rows themselves to the offset read (and, planned without statistics,
      // sorted) 50,100 whole rows; past the page, only their ids may travel up the plan.
      const nodes = await planOf(pageOfRows(ctx, datasetId, page), { verbose: true });
      const wide = nodes.filter(
        (n) =>
          n["Actual Rows"] * n["Actual Loops"] > page.pageSize &&
          !(n.Output ?? []).every((column) => /(^|\.)id$/.test(column)),
      );
      expect(wide.map((n) => `${n["Node Type"]}: ${(n.Output ?? []).join(", ")}`)).toEqual([]);
      expect(readsOfRows(nodes).filter((read) => read.rows > page.offset)).toHaveLength(1);
    });

    it(`reads a single equality's page off its term's range, and only that page from rows (${statistics} statistics)`, async () => {
      // What autovacuum (Neon's, or the local stack's maintenance) leaves: statistics and
      // the visibility map that lets the term's range be read from the index alone.
      if (statistics === "with") await db.execute(sql`vacuum analyze`);
      const filter = { bucket: 7 };
      const term = singleEquality(filter)!;
      const onRows = compileFilter(filter, sql`${rows.metadata}`);
      // Without statistics the planner takes a deep page (here from the middle of the term's
      // 1,000 rows) for most of the range and sorts it, 1,000 narrow entries; the first page
      // it always reads in key order.
      for (const offset of statistics === "with" ? [0, 500] : [0]) {
        const nodes = await planOf(
          pageOfTermMatches(ctx, datasetId, term, onRows, { offset, pageSize: 100 }),
        );
        const terms = nodes.filter((n) => n["Relation Name"] === "row_filter_terms");
        const bitmap = nodes.find(
          (n) =>
            n["Node Type"] === "Bitmap Index Scan" &&
            n["Index Name"] === "row_filter_terms_term_key_row_id_pk",
        );
        if (statistics === "with" && bitmap) {
          // With real statistics native PostgreSQL may read the term's whole range (1,000
          // entries) through a bitmap and sort it: still only the term's entries, off its key.
          expect(terms.map((n) => n["Node Type"])).toEqual(["Bitmap Heap Scan"]);
          expect(bitmap["Actual Rows"]).toBe(1000);
        } else {
          expect(terms.map((n) => n["Index Name"])).toEqual([
            "row_filter_terms_term_key_row_id_pk",
          ]);
          // In key order already: the scan stops at the page, nothing sorts the term's range.
          expect(terms[0]!["Actual Rows"]).toBe(offset + 100);
        }
        expect(nodes.map((n) => n["Node Type"])).not.toContain("Seq Scan");
        expect(readsOfRows(nodes)).toEqual([{ node: "Index Scan rows_pkey", rows: 100 }]);
      }
    });

    it(`finds a selective filter's matches in the copy and reads only the page from rows (${statistics} statistics)`, async () => {
      if (statistics === "with") await db.execute(sql`analyze`);
      // Not a single equality, so not a term's range: the general path.
      const filter = { bucket: { $in: [7] } };
      const matching = matchingRows(datasetId, compileFilter(filter, filterColumn));
      const nodes = await planOf(
        pageOfFewMatches(ctx, datasetId, matching, { offset: 0, pageSize: 100 }),
      );
      expect(nodes.map((n) => n["Index Name"])).toContain("row_filter_metadata_gin_idx");
      expect(nodes.map((n) => n["Node Type"])).not.toContain("Seq Scan");
      expect(readsOfRows(nodes)).toEqual([{ node: "Index Scan rows_pkey", rows: 100 }]);
    });
  }

  // Without statistics the planner cannot tell a broad filter from a selective one and may
  // bitmap the copy (still 2-3x faster than the same plan on rows was); with them it walks.
  it("walks the copy in id order for a broad filter (with statistics)", async () => {
    await db.execute(sql`analyze`);
    const matching = matchingRows(datasetId, compileFilter({ bucket: { $ne: 7 } }, filterColumn));
    const nodes = await planOf(
      pageOfManyMatches(ctx, datasetId, matching, { offset: 20_000, pageSize: 5 }),
    );
    expect(nodes.map((n) => n["Index Name"])).toContain("row_filter_metadata_dataset_id_row_id_pk");
    expect(nodes.map((n) => n["Node Type"])).not.toContain("Seq Scan");
    expect(readsOfRows(nodes)).toEqual([{ node: "Index Scan rows_pkey", rows: 5 }]);
  });
});

// Last in the file: its ANALYZE gives PGlite statistics, which the tests above are run without.
describe("removals from the filter copy", () => {
  it("removes a row's terms by key: deleting or re-tagging a few rows reads no other row's terms", async () => {
    const { ctx, datasetId } = await setup("removals");
    for (let d = 0; d < 50; d++) {
      await upsertRows(ctx, datasetId, {
        document_id: `doc-${d}`,
        rows: Array.from({ length: d < 2 ? 5 : 100 }, (_, i) => ({
          data: { text: `row ${i} of document ${d}` },
          metadata: { i, bucket: i % 10, tags: [`t${i % 3}`, "all"] },
        })),
      });
    }
    await query("ANALYZE row_filter_terms");
    // Sequential scans of the terms in the statement's transaction (its triggers included).
    const termScans = (statement: ReturnType<typeof sql>) =>
      db.transaction(async (tx) => {
        await tx.execute(statement);
        return transactionCounter(tx, sql`pg_stat_get_xact_numscans('row_filter_terms'::regclass)`);
      });
    const inDocument = (d: number) =>
      sql`${rows.datasetId} = ${datasetId} AND ${rows.documentId} = ${`doc-${d}`}`;
    expect(await termScans(sql`DELETE FROM ${rows} WHERE ${inDocument(0)}`)).toBe(0);
    expect(
      await termScans(
        sql`UPDATE ${rows} SET metadata = metadata || '{"bucket": 99}' WHERE ${inDocument(1)}`,
      ),
    ).toBe(0);
    await expectCopyMatchesRows();
  });
});
