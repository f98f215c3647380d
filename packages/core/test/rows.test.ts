import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rows } from "@quarry/db";
import { LocalHashEmbedder } from "@quarry/providers";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  deleteRow,
  getDocument,
  listRows,
  type ProjectContext,
  parseInput,
  UpdateRowInput,
  UpsertRowsInput,
  updateRow,
  upsertRows,
  writeRowsOfDocument,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

const defaults = { embeddingModel: "local/hash" };
const page = { offset: 0, pageSize: 1000 };

async function setup(name = "rows", columns?: { name: string; type: "text"; embed: boolean }[]) {
  const { ctx } = await createTenant(database.db, name);
  const dataset = await createDataset(ctx, { name, ...(columns ? { columns } : {}) }, defaults);
  return { ctx, datasetId: dataset.id };
}

async function storedEmbedding(rowId: number): Promise<number[] | null> {
  const [row] = await database.db
    .select({ e: sql<string | null>`${rows.embedding}::text` })
    .from(rows)
    .where(eq(rows.id, rowId));
  return row?.e ? (JSON.parse(row.e) as number[]) : null;
}

/** A body from outside, validated as the edge validates it, then written. */
async function upsertUntrusted(ctx: ProjectContext, datasetId: string, body: unknown) {
  return upsertRows(ctx, datasetId, parseInput(UpsertRowsInput, body));
}
async function updateUntrusted(ctx: ProjectContext, id: string, rowId: string, body: unknown) {
  return updateRow(ctx, id, rowId, parseInput(UpdateRowInput, body));
}

async function expectBadRequest(promise: Promise<unknown>, path: string) {
  await expect(promise).rejects.toMatchObject({ code: "bad_request" });
  await promise.catch((e: Error) => expect(e.message.startsWith(`${path}:`)).toBe(true));
}

describe("E11 upsert", () => {
  it("creates a document with a generated id and stores embedded rows in order", async () => {
    const { ctx, datasetId } = await setup();
    const written = await upsertRows(ctx, datasetId, {
      rows: [
        { data: { text: "first row about comets" }, metadata: { year: 2020, tags: ["a", "b"] } },
        { data: { text: "second row about planets" } },
      ],
    });
    expect(written.document_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(written.rows).toHaveLength(2);
    const [a, b] = written.rows;
    expect(a!.id).toBeLessThan(b!.id);
    expect(a).toEqual({
      id: a!.id,
      dataset_id: datasetId,
      data: { text: "first row about comets" },
      embedding_vector_ids: { text: `${a!.id}:text` },
      metadata: { year: 2020, tags: ["a", "b"], rowId: a!.id, documentId: written.document_id },
      document_id: written.document_id,
      image_paths: null,
    });
    const expected = (await new LocalHashEmbedder(384).embed(["first row about comets"]))[0]!;
    const stored = await storedEmbedding(a!.id);
    expect(stored).toHaveLength(384);
    for (const [i, v] of stored!.entries()) expect(v).toBeCloseTo(expected[i]!, 5);
    const doc = await getDocument(ctx, datasetId, written.document_id);
    expect(doc).toMatchObject({ status: "ready", row_count: 2 });
    expect(await listRows(ctx, datasetId, page)).toEqual(written.rows);
  });

  it("replaces the rows of an existing document and creates a named one", async () => {
    const { ctx, datasetId } = await setup();
    const first = await upsertRows(ctx, datasetId, {
      document_id: "doc-1",
      rows: [{ data: { text: "old one" } }, { data: { text: "old two" } }],
    });
    const second = await upsertRows(ctx, datasetId, {
      document_id: "doc-1",
      rows: [{ data: { text: "new" } }],
    });
    expect(second.document_id).toBe("doc-1");
    expect(second.rows[0]!.id).toBeGreaterThan(first.rows[1]!.id);
    expect((await listRows(ctx, datasetId, page)).map((r) => r.data.text)).toEqual(["new"]);
  });

  it("ignores system keys in user metadata and keeps the service's values", async () => {
    const { ctx, datasetId } = await setup();
    const written = await upsertRows(ctx, datasetId, {
      document_id: "d",
      rows: [
        { data: { text: "x" }, metadata: { rowId: 99, documentId: "other", url: "/x", k: 1 } },
      ],
    });
    expect(written.rows[0]!.metadata).toEqual({
      k: 1,
      rowId: written.rows[0]!.id,
      documentId: "d",
    });
  });

  it("stores rows without text in the embedded column unembedded", async () => {
    const { ctx, datasetId } = await setup("two-columns", [
      { name: "text", type: "text", embed: true },
      { name: "title", type: "text", embed: false },
    ]);
    const written = await upsertRows(ctx, datasetId, {
      rows: [{ data: { title: "only a title" } }],
    });
    expect(written.rows[0]!.embedding_vector_ids).toEqual({});
    expect(await storedEmbedding(written.rows[0]!.id)).toBeNull();
  });

  it("keeps each vector on its own row when a batch mixes embedded and unembedded rows", async () => {
    const { ctx, datasetId } = await setup("mixed", [
      { name: "text", type: "text", embed: true },
      { name: "title", type: "text", embed: false },
    ]);
    const texts = [null, "granite quarry", null, null, "river stone", "marble", null];
    const written = await upsertRows(ctx, datasetId, {
      rows: texts.map((text, i) => ({
        data: text ? { text } : ({ title: `title ${i}` } as Record<string, string>),
      })),
    });
    const embedder = new LocalHashEmbedder();
    for (const [i, text] of texts.entries()) {
      const stored = await storedEmbedding(written.rows[i]!.id);
      if (text === null) {
        expect(stored, `row ${i}`).toBeNull();
        continue;
      }
      const expected = embedder.embedOne(text);
      expect(stored, `row ${i}`).toHaveLength(384);
      for (const [d, v] of stored!.entries()) expect(v).toBeCloseTo(expected[d]!, 5);
    }
  });

  it.each([
    ["rows", { rows: "nope" }],
    ["rows[0].data.text", { rows: [{ data: { text: 1 } }] }],
    ["rows[0].data.nope", { rows: [{ data: { nope: "x" } }] }],
    ["rows[0].data", { rows: [{ data: {} }] }],
    ["rows[0].extra", { rows: [{ data: { text: "x" }, extra: 1 }] }],
    ["rows[0].metadata.a", { rows: [{ data: { text: "x" }, metadata: { a: { b: 1 } } }] }],
    ["rows[0].metadata.a[0]", { rows: [{ data: { text: "x" }, metadata: { a: [1] } }] }],
    ["rows[0].metadata.a", { rows: [{ data: { text: "x" }, metadata: { a: null } }] }],
    ["document_id", { rows: [{ data: { text: "x" } }], document_id: "a/b" }],
    ["rows", { rows: Array.from({ length: 1001 }, () => ({ data: { text: "x" } })) }],
  ])("refuses a bad body naming %s, storing nothing", async (path, body) => {
    const { ctx, datasetId } = await setup();
    await expectBadRequest(upsertUntrusted(ctx, datasetId, body), path);
    expect(await listRows(ctx, datasetId, page)).toEqual([]);
  });
});

describe("E12 replace and E13 add", () => {
  it("appends to and replaces an existing document; a missing one is a 404", async () => {
    const { ctx, datasetId } = await setup();
    await upsertRows(ctx, datasetId, { document_id: "d", rows: [{ data: { text: "one" } }] });
    const added = await writeRowsOfDocument(
      ctx,
      datasetId,
      "d",
      { rows: [{ data: { text: "two" } }] },
      "append",
    );
    expect(added.rows.map((r) => r.data.text)).toEqual(["two"]);
    expect((await listRows(ctx, datasetId, page)).map((r) => r.data.text)).toEqual(["one", "two"]);
    const replaced = await writeRowsOfDocument(
      ctx,
      datasetId,
      "d",
      { rows: [{ data: { text: "three" } }] },
      "replace",
    );
    expect((await listRows(ctx, datasetId, page)).map((r) => r.id)).toEqual([replaced.rows[0]!.id]);
    await expect(
      writeRowsOfDocument(ctx, datasetId, "missing", { rows: [] }, "append"),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("serialises concurrent replacements of one document: never a mix", async () => {
    const { ctx, datasetId } = await setup();
    const batch = (tag: string) =>
      Array.from({ length: 20 }, (_, i) => ({ data: { text: `${tag} ${i}` } }));
    await Promise.all(
      ["a", "b", "c", "d"].map((tag) =>
        upsertRows(ctx, datasetId, { document_id: "same", rows: batch(tag) }),
      ),
    );
    const listed = await listRows(ctx, datasetId, page);
    expect(listed).toHaveLength(20);
    expect(new Set(listed.map((r) => r.data.text!.split(" ")[0])).size).toBe(1);
  });
});

describe("embedding failures", () => {
  let server: Server;
  let requests = 0;
  /** what the provider answers: overloaded, or vectors with a component float4 cannot hold */
  let reply: "overloaded" | "out-of-range" = "overloaded";
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      req.resume();
      if (reply === "out-of-range") {
        const embedding = new Array(1536).fill(0.01);
        embedding[7] = 1e39;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            object: "list",
            data: [{ object: "embedding", index: 0, embedding }],
            model: "m",
            usage: { prompt_tokens: 1, total_tokens: 1 },
          }),
        );
        return;
      }
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "overloaded" } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("retries, then fails with upstream_error and leaves the old rows in place", async () => {
    const { ctx: base } = await createTenant(database.db, "upstream");
    const ctx: ProjectContext = {
      ...base,
      providers: {
        OPENAI_API_KEY: "sk-test",
        OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      },
    };
    const dataset = await createDataset(
      ctx,
      { name: "remote", embedding_model: "openai/text-embedding-3-small" },
      defaults,
    );
    // Seed rows directly with the local embedder's vectors sized for this dataset.
    const vector = `[${new Array(1536).fill(0.01).join(",")}]`;
    await database.db.execute(
      sql`insert into documents (project_id, dataset_id, id, status, metadata) values (${ctx.projectId}, ${dataset.id}, 'd', 'ready', '{}')`,
    );
    await database.db.execute(
      sql`insert into rows (project_id, dataset_id, document_id, data, metadata, embedding) values (${ctx.projectId}, ${dataset.id}, 'd', '{"text":"kept"}', '{}', ${vector}::vector)`,
    );
    const before = await listRows(ctx, dataset.id, page);
    await expect(
      upsertRows(ctx, dataset.id, { document_id: "d", rows: [{ data: { text: "new" } }] }),
    ).rejects.toMatchObject({ code: "upstream_error" });
    expect(requests).toBeGreaterThan(1);
    expect(await listRows(ctx, dataset.id, page)).toEqual(before);

    reply = "out-of-range";
    await expect(
      upsertRows(ctx, dataset.id, { document_id: "d", rows: [{ data: { text: "new" } }] }),
    ).rejects.toMatchObject({
      code: "upstream_error",
      message: expect.stringContaining("pgvector cannot store"),
    });
    expect(await listRows(ctx, dataset.id, page)).toEqual(before);
  });
});

describe("E8 update and E14 delete", () => {
  it("merges data and metadata and re-embeds when the embedded text changes", async () => {
    const { ctx, datasetId } = await setup();
    const {
      rows: [row],
    } = await upsertRows(ctx, datasetId, {
      document_id: "d",
      rows: [{ data: { text: "before" }, metadata: { a: 1, b: "x" } }],
    });
    const embeddedBefore = await storedEmbedding(row!.id);
    const onlyMetadata = await updateRow(ctx, datasetId, String(row!.id), {
      metadata: { b: "y", c: true },
    });
    expect(onlyMetadata.metadata).toEqual({
      a: 1,
      b: "y",
      c: true,
      rowId: row!.id,
      documentId: "d",
    });
    expect(await storedEmbedding(row!.id)).toEqual(embeddedBefore);
    const updated = await updateRow(ctx, datasetId, String(row!.id), { data: { text: "after" } });
    expect(updated.data).toEqual({ text: "after" });
    const expected = (await new LocalHashEmbedder(384).embed(["after"]))[0]!;
    for (const [i, v] of (await storedEmbedding(row!.id))!.entries()) {
      expect(v).toBeCloseTo(expected[i]!, 5);
    }
  });

  it("validates and reports missing rows", async () => {
    const { ctx, datasetId } = await setup();
    const {
      rows: [row],
    } = await upsertRows(ctx, datasetId, { rows: [{ data: { text: "t" } }] });
    await expectBadRequest(updateUntrusted(ctx, datasetId, String(row!.id), {}), "body");
    await expectBadRequest(updateRow(ctx, datasetId, "abc", { data: { text: "x" } }), "row_id");
    await expectBadRequest(
      updateRow(ctx, datasetId, String(row!.id), { data: { nope: "x" } }),
      "data.nope",
    );
    await expect(
      updateRow(ctx, datasetId, "999999999", { data: { text: "x" } }),
    ).rejects.toMatchObject({ code: "not_found" });
    await deleteRow(ctx, datasetId, String(row!.id));
    await expect(deleteRow(ctx, datasetId, String(row!.id))).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await listRows(ctx, datasetId, page)).toEqual([]);
  });

  it("cannot touch a row of another dataset through its id", async () => {
    const one = await setup("one");
    const two = await setup("two");
    const {
      rows: [row],
    } = await upsertRows(one.ctx, one.datasetId, { rows: [{ data: { text: "mine" } }] });
    await expect(deleteRow(two.ctx, two.datasetId, String(row!.id))).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      updateRow(two.ctx, two.datasetId, String(row!.id), { data: { text: "x" } }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect(await listRows(one.ctx, one.datasetId, page)).toHaveLength(1);
  });
});

describe("E6 list", () => {
  it("lists in insertion order across documents, paged and filtered", async () => {
    const { ctx, datasetId } = await setup();
    for (let d = 0; d < 3; d++) {
      await upsertRows(ctx, datasetId, {
        document_id: `doc-${d}`,
        rows: Array.from({ length: 5 }, (_, i) => ({
          data: { text: `doc ${d} row ${i}` },
          metadata: { d, i, tags: i % 2 === 0 ? ["even"] : ["odd"] },
        })),
      });
    }
    const all = await listRows(ctx, datasetId, page);
    expect(all.map((r) => r.data.text)).toEqual(
      [0, 1, 2].flatMap((d) => [0, 1, 2, 3, 4].map((i) => `doc ${d} row ${i}`)),
    );
    const second = await listRows(ctx, datasetId, { offset: 5, pageSize: 3 });
    expect(second.map((r) => r.data.text)).toEqual(["doc 1 row 0", "doc 1 row 1", "doc 1 row 2"]);
    const evenOfDoc1 = await listRows(ctx, datasetId, page, { documentId: "doc-1", tags: "even" });
    expect(evenOfDoc1.map((r) => r.data.text)).toEqual([
      "doc 1 row 0",
      "doc 1 row 2",
      "doc 1 row 4",
    ]);
    const byRowId = await listRows(ctx, datasetId, page, {
      rowId: { $in: [all[3]!.id, all[7]!.id] },
    });
    expect(byRowId.map((r) => r.id)).toEqual([all[3]!.id, all[7]!.id]);
    await expectBadRequest(listRows(ctx, datasetId, page, { i: { $gt: "1" } }), "filter.i.$gt");
  });
});
