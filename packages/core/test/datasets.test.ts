import { documents, rows } from "@quarry/db";
import { and, count, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { pageOfDocuments } from "../src/documents/documents-page.ts";
import type { FileStore, ProjectContext } from "../src/index.ts";
import {
  CreateDatasetInput,
  createDataset,
  deleteDataset,
  deleteDocument,
  deleteRow,
  EF_SEARCH_DEFAULTS,
  getDataset,
  getDocument,
  listDatasets,
  listDocuments,
  parseInput,
  upsertRows,
  VECTOR_GRAPH_DEFAULTS,
  writeRowsOfDocument,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { type PlanNode, planNodes } from "./support/plan-nodes.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

const defaults = { embeddingModel: "local/hash" };
const page = { offset: 0, pageSize: 100 };

/** A body from outside, validated as the edge validates it, then created. */
async function createUntrusted(ctx: ProjectContext, body: unknown) {
  return createDataset(ctx, parseInput(CreateDatasetInput, body), defaults);
}

/** A FileStore that records what the domain asked to delete (R2 itself is tested end to end). */
function recordingFiles() {
  const deleted: string[] = [];
  const store: FileStore = {
    put: async () => {},
    delete: async (key) => void deleted.push(key),
    deletePrefix: async (prefix) => void deleted.push(`${prefix}*`),
  };
  return { store, deleted };
}

describe("datasets", () => {
  it("creates with the documented defaults", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "docs" }, defaults);
    expect(dataset).toMatchObject({
      name: "docs",
      kind: "standard",
      columns: [{ name: "text", type: "text", embed: true }],
      metadata_columns: [],
      embedding_model: "local/hash",
      dimensions: 384,
    });
    expect(dataset.id).toMatch(/^ds_[0-9a-z]{20}$/);
    expect(await getDataset(ctx, dataset.id)).toEqual({
      ...dataset,
      // not measured yet: the model family's default list size
      vector_index: {
        pending_rows: 0,
        graph: "valid",
        rebuilding: false,
        ef_search: EF_SEARCH_DEFAULTS.local,
        recall_at_10: null,
        measured_rows: null,
        measured_on: null,
        measured_queries: null,
        m: VECTOR_GRAPH_DEFAULTS.local.m,
        ef_construction: VECTOR_GRAPH_DEFAULTS.local.efConstruction,
        encoding: VECTOR_GRAPH_DEFAULTS.local.encoding,
      },
    });
  });

  it.each([
    ["local/hash", {}, VECTOR_GRAPH_DEFAULTS.local],
    ["openai/text-embedding-3-small", {}, VECTOR_GRAPH_DEFAULTS.trained],
    // the deployment's choice over the family's (VECTOR_GRAPH_M, VECTOR_GRAPH_EF_CONSTRUCTION)
    [
      "local/hash",
      { m: 12, efConstruction: 40 },
      { m: 12, efConstruction: 40, encoding: "halfvec" },
    ],
    ["local/hash", { efConstruction: 48 }, { ...VECTOR_GRAPH_DEFAULTS.local, efConstruction: 48 }],
    // pgvector needs a list of at least twice the links: raised to it
    [
      "openai/text-embedding-3-small",
      { m: 40 },
      { m: 40, efConstruction: 80, encoding: "halfvec" },
    ],
    // the deployment's precision (VECTOR_GRAPH_ENCODING), which HNSW builds up to 2,000 dimensions
    ["local/hash", { encoding: "vector" }, { ...VECTOR_GRAPH_DEFAULTS.local, encoding: "vector" }],
    [
      "openai/text-embedding-3-large",
      { encoding: "vector" },
      { ...VECTOR_GRAPH_DEFAULTS.trained, encoding: "halfvec" },
    ],
  ] as const)(
    "builds a %s dataset's graph (deployment's choice %j) with %j",
    async (model, overrides, graph) => {
      const { ctx } = await createTenant(database.db);
      const dataset = await createDataset(
        ctx,
        { name: "g", embedding_model: model },
        { ...defaults, graph: overrides },
      );
      const detail = await getDataset(ctx, dataset.id);
      expect(detail.vector_index).toMatchObject({
        m: graph.m,
        ef_construction: graph.efConstruction,
        encoding: graph.encoding,
      });
      // The index itself, as Postgres built it: the view must not say what the graph is not.
      const result = (await database.db.execute(sql`
      SELECT c.reloptions, pg_get_indexdef(c.oid) AS definition FROM pg_class c
      WHERE c.oid = quarry_serving_vector_graph(${dataset.id})`)) as unknown as {
        rows: { reloptions: string[] | string; definition: string }[];
      };
      const options = String(result.rows[0]?.reloptions);
      expect(options).toContain(`m=${graph.m}`);
      expect(options).toContain(`ef_construction=${graph.efConstruction}`);
      const n = dataset.dimensions;
      expect(result.rows[0]?.definition).toContain(
        graph.encoding === "vector"
          ? `((embedding)::vector(${n})) vector_cosine_ops`
          : `((l2_normalize((embedding)::vector(${n})))::halfvec(${n})) halfvec_cosine_ops`,
      );
    },
  );

  it.each([
    [{ name: "x", columns: [] }, "columns"],
    [
      { name: "x", columns: [{ name: "bad name", type: "text" as const, embed: true }] },
      "columns[0].name",
    ],
    [
      {
        name: "x",
        columns: [
          { name: "a", type: "text" as const, embed: true },
          { name: "a", type: "text" as const, embed: false },
        ],
      },
      "columns[1].name",
    ],
    [
      {
        name: "x",
        columns: [
          { name: "a", type: "text" as const, embed: true },
          { name: "b", type: "text" as const, embed: true },
        ],
      },
      "columns",
    ],
    [
      { name: "x", metadata_columns: [{ name: "rowId", type: "number" as const }] },
      "metadata_columns[0].name",
    ],
    [{ name: "x", embedding_model: "nope/model" }, "embedding_model"],
    [{ name: "x", embedding_model: "openai/some-new-model" }, "dimensions"],
  ])("rejects invalid input %#, naming %s", async (input, path) => {
    const { ctx } = await createTenant(database.db);
    await expect(createUntrusted(ctx, input)).rejects.toMatchObject({
      code: "bad_request",
      path,
    });
    expect(await listDatasets(ctx, page)).toEqual([]);
  });

  it("accepts explicit dimensions for models Quarry does not know", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(
      ctx,
      { name: "x", embedding_model: "openai/some-new-model", dimensions: 256 },
      defaults,
    );
    expect(dataset.dimensions).toBe(256);
  });

  it("lists only the caller's datasets, oldest first, paged", async () => {
    const a = await createTenant(database.db, "a");
    const b = await createTenant(database.db, "b");
    const first = await createDataset(a.ctx, { name: "one" }, defaults);
    const second = await createDataset(a.ctx, { name: "two" }, defaults);
    await createDataset(b.ctx, { name: "other" }, defaults);
    expect((await listDatasets(a.ctx, page)).map((d) => d.id)).toEqual([first.id, second.id]);
    expect((await listDatasets(a.ctx, { offset: 1, pageSize: 1 })).map((d) => d.id)).toEqual([
      second.id,
    ]);
  });

  it("answers 401 for another project's dataset and 404 for an unknown one", async () => {
    const a = await createTenant(database.db, "a");
    const b = await createTenant(database.db, "b");
    const dataset = await createDataset(a.ctx, { name: "mine" }, defaults);
    await expect(getDataset(b.ctx, dataset.id)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(getDataset(a.ctx, "ds_unknown")).rejects.toMatchObject({ code: "not_found" });
    const files = recordingFiles();
    await expect(deleteDataset(b.ctx, dataset.id, files.store)).rejects.toMatchObject({
      code: "unauthorized",
    });
    expect(files.deleted).toEqual([]);
    expect(await getDataset(a.ctx, dataset.id)).toMatchObject({ id: dataset.id });
  });

  it("deletes a dataset with its documents, rows and files", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "gone" }, defaults);
    await seedDocument(ctx.projectId, dataset.id, "doc-1", 3);
    const files = recordingFiles();
    await deleteDataset(ctx, dataset.id, files.store);
    expect(files.deleted).toEqual([`${dataset.id}/*`]);
    await expect(getDataset(ctx, dataset.id)).rejects.toMatchObject({ code: "not_found" });
    const [left] = await database.db
      .select({ n: count() })
      .from(rows)
      .where(eq(rows.datasetId, dataset.id));
    expect(left?.n).toBe(0);
  });
});

describe("documents", () => {
  it("pages documents in creation order, looking up row counts for the page's documents only", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "d" }, defaults);
    // 3,000 documents a second apart, each counted with i rows (the count the triggers keep).
    await database.fresh.sql(
      `insert into documents (project_id, dataset_id, id, status, metadata, created_at)
       select $1, $2, 'doc-' || lpad(g::text, 4, '0'), 'ready', '{}',
              timestamp '2026-01-01' + g * interval '1 second'
       from generate_series(1, 3000) g`,
      [ctx.projectId, dataset.id],
    );
    await database.fresh.sql(
      `insert into keyword_documents (dataset_id, document_id, row_count, length)
       select $1, 'doc-' || lpad(g::text, 4, '0'), g, 0 from generate_series(1, 3000) g`,
      [dataset.id],
    );
    const deep = { offset: 2500, pageSize: 100 };
    const listed = await listDocuments(ctx, dataset.id, deep);
    expect(listed.map((d) => [d.id, d.row_count])).toEqual(
      Array.from({ length: 100 }, (_, i) => [`doc-${String(2501 + i).padStart(4, "0")}`, 2501 + i]),
    );
    // Asked in one select, a skipped document's row count was looked up too: 2,600 lookups.
    const { sql: text, params } = pageOfDocuments(ctx, dataset.id, deep).toSQL();
    const [plan] = await database.fresh.sql<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `explain (analyze, format json) ${text}`,
      params,
    );
    const lookups = planNodes(plan!)
      .filter((n) => n["Relation Name"] === "keyword_documents")
      .map((n) => n["Actual Loops"]);
    expect(lookups).toEqual([deep.pageSize]);
  });

  it("lists and gets documents with row counts and status", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "d" }, defaults);
    await seedDocument(ctx.projectId, dataset.id, "doc-a", 2);
    await seedDocument(ctx.projectId, dataset.id, "doc-b", 0);
    const listed = await listDocuments(ctx, dataset.id, page);
    expect(listed.map((d) => [d.id, d.row_count, d.status])).toEqual([
      ["doc-a", 2, "ready"],
      ["doc-b", 0, "ready"],
    ]);
    expect(await getDocument(ctx, dataset.id, "doc-a")).toMatchObject({
      id: "doc-a",
      dataset_id: dataset.id,
      row_count: 2,
      url: `/${dataset.id}/doc-a/file.txt`,
      error: null,
    });
    await expect(getDocument(ctx, dataset.id, "nope")).rejects.toMatchObject({ code: "not_found" });
  });

  it("reports the row count every write leaves, as the rows themselves count it", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "d" }, defaults);
    const rowsOf = (n: number, word: string) =>
      Array.from({ length: n }, (_, i) => ({ data: { text: `${word} ${i}` } }));
    const counted = async () => {
      const [stored] = await database.db
        .select({ n: count() })
        .from(rows)
        .where(and(eq(rows.datasetId, dataset.id), eq(rows.documentId, "doc")));
      const listed = await listDocuments(ctx, dataset.id, page);
      return {
        got: (await getDocument(ctx, dataset.id, "doc")).row_count,
        listed: listed.map((d) => [d.id, d.row_count]),
        stored: stored?.n,
      };
    };
    await upsertRows(ctx, dataset.id, { document_id: "other", rows: rowsOf(3, "o") });
    // The same document id in another dataset is another document.
    const elsewhere = await createDataset(ctx, { name: "e" }, defaults);
    await upsertRows(ctx, elsewhere.id, { document_id: "doc", rows: rowsOf(4, "e") });
    const written = await upsertRows(ctx, dataset.id, { document_id: "doc", rows: rowsOf(5, "a") });
    expect(await counted()).toEqual({
      got: 5,
      listed: [
        ["other", 3],
        ["doc", 5],
      ],
      stored: 5,
    });
    await writeRowsOfDocument(ctx, dataset.id, "doc", { rows: rowsOf(3, "b") }, "append");
    expect(await counted()).toEqual({
      got: 8,
      listed: [
        ["other", 3],
        ["doc", 8],
      ],
      stored: 8,
    });
    await deleteRow(ctx, dataset.id, String(written.rows[0]?.id));
    expect(await counted()).toEqual({
      got: 7,
      listed: [
        ["other", 3],
        ["doc", 7],
      ],
      stored: 7,
    });
    // Rows without any indexable term count too.
    await upsertRows(ctx, dataset.id, {
      document_id: "doc",
      rows: [{ data: { text: "" } }, { data: { text: "the" } }],
    });
    expect(await counted()).toEqual({
      got: 2,
      listed: [
        ["other", 3],
        ["doc", 2],
      ],
      stored: 2,
    });
    await writeRowsOfDocument(ctx, dataset.id, "doc", { rows: [] }, "replace");
    expect(await counted()).toEqual({
      got: 0,
      listed: [
        ["other", 3],
        ["doc", 0],
      ],
      stored: 0,
    });
  });

  it("deletes a document's rows and its file, and nothing else", async () => {
    const { ctx } = await createTenant(database.db);
    const dataset = await createDataset(ctx, { name: "d" }, defaults);
    await seedDocument(ctx.projectId, dataset.id, "keep", 2);
    await seedDocument(ctx.projectId, dataset.id, "drop", 3);
    const files = recordingFiles();
    await deleteDocument(ctx, dataset.id, "drop", files.store);
    expect(files.deleted).toEqual([`${dataset.id}/drop/file.txt`]);
    expect((await listDocuments(ctx, dataset.id, page)).map((d) => [d.id, d.row_count])).toEqual([
      ["keep", 2],
    ]);
  });

  it("does not let another project list or delete documents", async () => {
    const a = await createTenant(database.db, "a");
    const b = await createTenant(database.db, "b");
    const dataset = await createDataset(a.ctx, { name: "d" }, defaults);
    await seedDocument(a.ctx.projectId, dataset.id, "secret", 1);
    await expect(listDocuments(b.ctx, dataset.id, page)).rejects.toMatchObject({
      code: "unauthorized",
    });
    const files = recordingFiles();
    await expect(deleteDocument(b.ctx, dataset.id, "secret", files.store)).rejects.toMatchObject({
      code: "unauthorized",
    });
    expect((await listDocuments(a.ctx, dataset.id, page)).map((d) => d.row_count)).toEqual([1]);
  });
});

async function seedDocument(projectId: string, datasetId: string, id: string, rowCount: number) {
  await database.db.insert(documents).values({
    projectId,
    datasetId,
    id,
    filename: "file.txt",
    url: `/${datasetId}/${id}/file.txt`,
    storageKey: `${datasetId}/${id}/file.txt`,
    status: "ready",
  });
  for (let i = 0; i < rowCount; i++) {
    await database.db.insert(rows).values({
      projectId,
      datasetId,
      documentId: id,
      data: { text: `row ${i}` },
      metadata: {},
    });
  }
}
