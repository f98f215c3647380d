import { describe, expect, it } from "vitest";
import { chunkPages } from "../src/chunking/chunk-pages.ts";
import {
  CreateDatasetInput,
  createDataset,
  createDocument,
  listRows,
  type ProjectContext,
  parseInput,
  updateRow,
  upsertRows,
  writeRowsOfDocument,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { noFiles } from "./support/no-files.ts";
import { createTenant } from "./support/tenant.ts";

/** `chunk` and `page` are service keys, like rowId (docs/api.md#service-metadata-keys). */

const database = useFreshDatabase();

const page = { offset: 0, pageSize: 1000 };
const noFetch = {
  fetchUrl: async () => {
    throw new Error("no fetch");
  },
  files: noFiles,
  enqueue: async () => {},
};

async function setup(name: string) {
  const { ctx } = await createTenant(database.db, name);
  const dataset = await createDataset(ctx, { name }, { embeddingModel: "local/hash" });
  return { ctx, datasetId: dataset.id };
}

async function chunkedDocument(ctx: ProjectContext, datasetId: string) {
  const content = Array.from({ length: 20 }, (_, i) => `Sentence ${i} is here.`).join(" ");
  await createDocument(
    ctx,
    datasetId,
    // a user's chunk and page on the document are dropped, like rowId
    { id: "doc", content, chunk_size: 100, chunk_overlap: 0, metadata: { chunk: 99, page: 7 } },
    noFetch,
  );
  return listRows(ctx, datasetId, page, { documentId: "doc" });
}

describe("service keys chunk and page", () => {
  it("number an E5 document's rows from 0, whatever the user sent", async () => {
    const { ctx, datasetId } = await setup("e5");
    const rows = await chunkedDocument(ctx, datasetId);
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.map((r) => r.metadata.chunk)).toEqual(rows.map((_, i) => i));
    expect(rows.every((r) => !("page" in r.metadata))).toBe(true);
    const filtered = await listRows(ctx, datasetId, page, { chunk: { $gte: 1, $lt: 3 } });
    expect(filtered.map((r) => r.id)).toEqual([rows[1]!.id, rows[2]!.id]);
  });

  it("cannot be set or overwritten by users: E11, E13 and E8 drop them", async () => {
    const { ctx, datasetId } = await setup("users");
    const written = await upsertRows(ctx, datasetId, {
      document_id: "mine",
      rows: [{ data: { text: "x" }, metadata: { chunk: 3, page: 2, k: 1 } }],
    });
    expect(written.rows[0]!.metadata).toEqual({
      k: 1,
      rowId: written.rows[0]!.id,
      documentId: "mine",
    });
    const added = await writeRowsOfDocument(
      ctx,
      datasetId,
      "mine",
      { rows: [{ data: { text: "y" }, metadata: { page: 1 } }] },
      "append",
    );
    expect(added.rows[0]!.metadata).not.toHaveProperty("page");
    expect(await listRows(ctx, datasetId, page, { page: { $exists: true } })).toEqual([]);

    const [row] = await chunkedDocument(ctx, datasetId).then((rows) => rows.slice(2));
    const updated = await updateRow(ctx, datasetId, String(row!.id), {
      data: { text: "rewritten" },
      metadata: { chunk: 0, page: 9, note: "checked" },
    });
    // the row keeps its place in the document through an update
    expect(updated.metadata).toMatchObject({ chunk: 2, note: "checked", documentId: "doc" });
    expect(updated.metadata).not.toHaveProperty("page");
  });

  it("cannot be declared as metadata columns", async () => {
    const { ctx } = await createTenant(database.db, "declare");
    for (const name of ["chunk", "page"]) {
      await expect(
        (async () =>
          createDataset(
            ctx,
            parseInput(CreateDatasetInput, {
              name: "d",
              metadata_columns: [{ name, type: "number" }],
            }),
            { embeddingModel: "local/hash" },
          ))(),
      ).rejects.toMatchObject({ code: "bad_request", message: expect.stringMatching(/system/) });
    }
  });
});

describe("chunkPages", () => {
  it("gives each chunk the page its first word is on, across page breaks", () => {
    const pages = ["Alpha beta gamma.", "", "   Delta epsilon.", "Zeta eta theta iota."];
    const chunks = chunkPages(pages, 5, { chunkSize: 20, chunkOverlap: 0 });
    expect(chunks).toEqual([
      { text: "Alpha beta gamma.", page: 5 },
      { text: "Delta epsilon.", page: 7 },
      { text: "Zeta eta theta iota.", page: 8 },
    ]);
    // a chunk that opens in the break between two pages belongs to the next one
    const spanning = chunkPages(["one two", "three four five six"], 1, {
      chunkSize: 12,
      chunkOverlap: 0,
    });
    expect(spanning.map((c) => [c.text, c.page])).toEqual([
      ["one two", 1],
      ["three four", 2],
      ["five six", 2],
    ]);
  });
});
