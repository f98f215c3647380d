import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Database } from "@quarry/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CreateDocumentInput,
  createDataset,
  createDocument,
  fetchSource,
  listDocuments,
  listRows,
  parseInput,
  type UrlFetcher,
} from "../src/index.ts";
import { buildPdf } from "./parsing/support/pdf-builder.ts";
import { freshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

let db: Database;
let close: () => Promise<void>;
let server: Server;
let base: string;
const pages: Record<string, { type: string; body: string | Buffer }> = {
  "/article.html": {
    type: "text/html; charset=utf-8",
    body: `<html><head><title>Auroras</title></head><body><nav>Home | About | Login</nav>
      <article><h1>Northern lights</h1><p>Auroras appear when charged particles meet the atmosphere.</p>
      <p>They are seen near the poles.</p></article><footer>© 2026 Example</footer></body></html>`,
  },
  "/data.csv": {
    type: "text/csv",
    body: "text,year,source\r\nfirst line,2020,a\r\nsecond line,2021,b\r\n",
  },
  "/image.png": { type: "image/png", body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
  "/report.pdf": {
    type: "application/pdf",
    body: Buffer.from(buildPdf({ pages: [{ runs: [{ text: "A small report." }] }] })),
  },
  // mislabelled replies: a PDF and binary data served as text
  "/manual.txt": {
    type: "text/plain; charset=utf-8",
    body: Buffer.from(buildPdf({ pages: [{ runs: [{ text: "A mislabelled manual." }] }] })),
  },
  "/blob.txt": { type: "text/plain", body: randomBytes(64 * 1024) },
  "/big-blob": { type: "text/plain", body: randomBytes(5 * 1024 * 1024) },
};

function randomBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let seed = 5;
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    bytes[i] = seed >>> 24;
  }
  return bytes;
}

beforeAll(async () => {
  const fresh = await freshDatabase();
  db = fresh.db;
  close = () => fresh.close();
  server = createServer((req, res) => {
    const page = pages[req.url ?? ""];
    if (!page) {
      res.writeHead(404).end("missing");
      return;
    }
    res.writeHead(200, { "content-type": page.type }).end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const defaults = { embeddingModel: "local/hash" };
const page = { offset: 0, pageSize: 1000 };
const stored = new Map<string, Uint8Array>();
const queued: unknown[] = [];
const sourcesWith = (fetchUrl: UrlFetcher) => ({
  fetchUrl,
  files: {
    put: async (key: string, bytes: Uint8Array) => void stored.set(key, bytes),
    delete: async (key: string) => void stored.delete(key),
    deletePrefix: async () => {},
  },
  enqueue: async (message: unknown) => void queued.push(message),
});
const loopbackFetcher: UrlFetcher = (url) =>
  fetchSource(url, {
    fetch: (u, init) => fetch(u, init),
    resolveHost: async () => ["127.0.0.1"],
    allowPrivate: true,
  });
const publicOnlyFetcher: UrlFetcher = (url) =>
  fetchSource(url, {
    fetch: (u, init) => fetch(u, init),
    resolveHost: async () => ["127.0.0.1"],
    allowPrivate: false,
  });

async function setup(name = "docs", extra: Record<string, unknown> = {}) {
  const { ctx } = await createTenant(db, name);
  const dataset = await createDataset(ctx, { name, ...extra }, defaults);
  return { ctx, datasetId: dataset.id };
}

describe("E5 create document", () => {
  it("stores and queues content above the inline limit, returning it queued", async () => {
    const { ctx, datasetId } = await setup("large");
    const content = "A long sentence for the queue. ".repeat(70_000);
    const doc = await createDocument(
      ctx,
      datasetId,
      { id: "big", content },
      sourcesWith(loopbackFetcher),
    );
    expect(doc).toMatchObject({ id: "big", status: "queued", row_count: 0 });
    const key = `${datasetId}/big/content.txt`;
    expect(new TextDecoder().decode(stored.get(key))).toBe(content);
    expect(queued.at(-1)).toEqual({
      v: 1,
      projectId: ctx.projectId,
      datasetId,
      documentId: "big",
      cursor: null,
    });
  });

  it("hands a fetched PDF of any size to the ingest worker: stored, queued, no rows yet", async () => {
    const { ctx, datasetId } = await setup("pdf");
    const url = `${base}/report.pdf`;
    const doc = await createDocument(
      ctx,
      datasetId,
      { id: "report", url, parse_url: true },
      sourcesWith(loopbackFetcher),
    );
    expect(doc).toMatchObject({ id: "report", status: "queued", row_count: 0, url });
    const key = `${datasetId}/report/report.pdf`;
    expect(Buffer.from(stored.get(key)!).equals(pages["/report.pdf"]!.body as Buffer)).toBe(true);
    expect(queued.at(-1)).toMatchObject({ datasetId, documentId: "report", cursor: null });
    expect(await listRows(ctx, datasetId, page)).toEqual([]);
  });

  it("chunks inline content, puts metadata on every row and returns the ready document", async () => {
    const { ctx, datasetId } = await setup();
    const content = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`).join(" ");
    const doc = await createDocument(
      ctx,
      datasetId,
      { id: "inline", content, chunk_size: 200, chunk_overlap: 20, metadata: { lang: "en" } },
      sourcesWith(loopbackFetcher),
    );
    expect(doc).toMatchObject({ id: "inline", status: "ready", error: null });
    const rows = await listRows(ctx, datasetId, page);
    expect(doc.row_count).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(4);
    for (const [chunk, row] of rows.entries()) {
      expect(row.data.text!.length).toBeLessThanOrEqual(200);
      // each row says its place in the document (`chunk`); no page outside PDFs
      expect(row.metadata).toEqual({ lang: "en", rowId: row.id, documentId: "inline", chunk });
    }
    expect(rows[0]!.data.text!.startsWith("Sentence number 0")).toBe(true);
  });

  it("refuses a duplicate id with 409 and leaves the first document as it was", async () => {
    const { ctx, datasetId } = await setup();
    await createDocument(
      ctx,
      datasetId,
      { id: "same", content: "one" },
      sourcesWith(loopbackFetcher),
    );
    await expect(
      createDocument(ctx, datasetId, { id: "same", content: "two" }, sourcesWith(loopbackFetcher)),
    ).rejects.toMatchObject({ code: "conflict" });
    expect((await listRows(ctx, datasetId, page)).map((r) => r.data.text)).toEqual(["one"]);
  });

  it.each([
    ["id", { content: "x" }],
    ["chunk_size", { id: "a", content: "x", chunk_size: 5001 }],
    ["chunk_overlap", { id: "a", content: "x", chunk_size: 100, chunk_overlap: 100 }],
    ["metadata.a", { id: "a", content: "x", metadata: { a: { b: 1 } } }],
    ["url", { id: "a", parse_url: true }],
    ["parse_url", { id: "a", url: "http://x", parse_url: "yes" }],
  ])("refuses bad input naming %s and stores nothing", async (path, body) => {
    const { ctx, datasetId } = await setup();
    const attempt = (async () =>
      createDocument(
        ctx,
        datasetId,
        parseInput(CreateDocumentInput, body),
        sourcesWith(loopbackFetcher),
      ))();
    await expect(attempt).rejects.toMatchObject({ code: "bad_request" });
    await attempt.catch((e: Error) => expect(e.message.startsWith(`${path}:`)).toBe(true));
    expect(await listDocuments(ctx, datasetId, page)).toEqual([]);
  });

  it("fetches and parses an HTML page: the article, not the navigation", async () => {
    const { ctx, datasetId } = await setup();
    const url = `${base}/article.html`;
    const doc = await createDocument(
      ctx,
      datasetId,
      { id: "web", url, parse_url: true },
      sourcesWith(loopbackFetcher),
    );
    expect(doc).toMatchObject({ status: "ready", url, filename: "article.html" });
    const text = (await listRows(ctx, datasetId, page)).map((r) => r.data.text).join("\n");
    expect(text).toContain("Auroras appear when charged particles meet the atmosphere.");
    expect(text).not.toContain("Login");
    expect(text).not.toContain("2026 Example");
    const rows = await listRows(ctx, datasetId, page);
    expect(rows[0]!.metadata.url).toBe(url);
  });

  it("turns a fetched CSV into rows with typed metadata columns", async () => {
    const { ctx, datasetId } = await setup("csv", {
      metadata_columns: [{ name: "year", type: "number" }],
    });
    await createDocument(
      ctx,
      datasetId,
      { id: "csv", url: `${base}/data.csv`, parse_url: true },
      sourcesWith(loopbackFetcher),
    );
    const rows = await listRows(ctx, datasetId, page);
    expect(rows.map((r) => [r.data, r.metadata.year])).toEqual([
      [{ text: "first line", source: "a" }, 2020],
      [{ text: "second line", source: "b" }, 2021],
    ]);
  });

  it("decides a fetched reply's type from its bytes: a PDF served as text/plain is a PDF", async () => {
    const { ctx, datasetId } = await setup("mislabelled-pdf");
    const url = `${base}/manual.txt`;
    const doc = await createDocument(
      ctx,
      datasetId,
      { id: "manual", url, parse_url: true },
      sourcesWith(loopbackFetcher),
    );
    // handed to the ingest worker as PDFs are, not stored as rows of PDF syntax
    expect(doc).toMatchObject({ id: "manual", status: "queued", row_count: 0 });
    expect(stored.has(`${datasetId}/manual/manual.txt`)).toBe(true);
    expect(queued.at(-1)).toMatchObject({ datasetId, documentId: "manual", cursor: null });
    expect(await listRows(ctx, datasetId, page)).toEqual([]);
  });

  it("refuses binary replies served as text with 415, small or large, storing nothing", async () => {
    const { ctx, datasetId } = await setup("binary-reply");
    const before = stored.size;
    for (const [id, path] of [
      ["blob", "/blob.txt"],
      ["big", "/big-blob"],
    ]) {
      const attempt = createDocument(
        ctx,
        datasetId,
        { id: id!, url: `${base}${path}`, parse_url: true },
        sourcesWith(loopbackFetcher),
      );
      await expect(attempt).rejects.toMatchObject({
        code: "unsupported_media_type",
        message: expect.stringMatching(/binary/),
      });
    }
    expect(stored.size).toBe(before);
    expect(await listDocuments(ctx, datasetId, page)).toEqual([]);
    expect(await listRows(ctx, datasetId, page)).toEqual([]);
  });

  it("refuses unsupported types (415), missing pages (400) and private addresses, storing nothing", async () => {
    const { ctx, datasetId } = await setup();
    await expect(
      createDocument(
        ctx,
        datasetId,
        { id: "png", url: `${base}/image.png`, parse_url: true },
        sourcesWith(loopbackFetcher),
      ),
    ).rejects.toMatchObject({ code: "unsupported_media_type" });
    await expect(
      createDocument(
        ctx,
        datasetId,
        { id: "404", url: `${base}/nope`, parse_url: true },
        sourcesWith(loopbackFetcher),
      ),
    ).rejects.toMatchObject({ code: "bad_request" });
    await expect(
      createDocument(
        ctx,
        datasetId,
        { id: "ssrf", url: `${base}/article.html`, parse_url: true },
        sourcesWith(publicOnlyFetcher),
      ),
    ).rejects.toMatchObject({ code: "bad_request" });
    expect(await listDocuments(ctx, datasetId, page)).toEqual([]);
    expect(await listRows(ctx, datasetId, page)).toEqual([]);
  });
});
