import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { documents } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  createDocument,
  fetchSource,
  type IngestMessage,
  isVectorIndexMessage,
  listRows,
  markdownToText,
  type ProjectContext,
  runIngestSlice,
  SLICE_LIMITS,
  splitFrontMatter,
} from "../../src/index.ts";
import { useFreshDatabase } from "../support/database.ts";
import { insertFileDocument, MemorySources } from "../support/file-documents.ts";
import { noFiles } from "../support/no-files.ts";
import { createTenant } from "../support/tenant.ts";

const database = useFreshDatabase();

const encoder = new TextEncoder();

const POST = [
  "---",
  "title: Caves",
  "layout: post",
  "tags: [geology, damp]",
  "---",
  "# Caves",
  "",
  "Caves are cool and damp.",
  "",
  "Stalactites hang from the ceiling.",
  "",
].join("\n");
const POST_TEXT = "# Caves\n\nCaves are cool and damp.\n\nStalactites hang from the ceiling.";

describe("splitFrontMatter and markdownToText", () => {
  it("drop YAML and TOML front matter whatever the line breaks, with or without a BOM", () => {
    expect(markdownToText(POST)).toEqual({ title: "Caves", text: POST_TEXT });
    for (const source of [
      POST,
      POST.replaceAll("\n", "\r\n"),
      POST.replaceAll("\n", "\r"),
      `\uFEFF${POST.replaceAll("\n", "\r\n")}`,
      POST.replace(/^---$/gm, "+++").replace("title: Caves", 'title = "Caves"'),
    ]) {
      const { frontMatter, body } = splitFrontMatter(source);
      expect(frontMatter).toMatch(/^title/);
      expect(frontMatter).toContain("layout");
      expect(body.startsWith("# Caves")).toBe(true);
      expect(source.endsWith(body)).toBe(true);
      expect(markdownToText(source)).toEqual({ title: "Caves", text: POST_TEXT });
    }
  });

  it("keep an unclosed fence or one that does not open the file, and stay linear", () => {
    for (const source of ["---\ntitle: x\nno closing fence", "\n---\ntitle: x\n---\nbody"]) {
      expect(splitFrontMatter(source)).toEqual({ frontMatter: null, body: source });
    }
    // a horizontal rule opening a 2 MB file with CRLF lines, never closed
    const long = `---\r\n${"key: value\r\n".repeat(180_000)}`;
    const started = performance.now();
    expect(splitFrontMatter(long).frontMatter).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

/** Ingests a file as an upload does: stored, queued, then sliced by the ingest worker. */
async function ingestUpload(
  ctx: ProjectContext,
  datasetId: string,
  id: string,
  file: { name: string; type: string; bytes: Uint8Array },
  chunkOverlap = 50,
) {
  const files = new MemorySources();
  const key = await insertFileDocument(database.db, {
    projectId: ctx.projectId,
    datasetId,
    id,
    file,
    status: "queued",
    chunkSize: 500,
    chunkOverlap,
  });
  files.files.set(key, file.bytes);
  const queue: IngestMessage[] = [
    { v: 1, projectId: ctx.projectId, datasetId, documentId: id, cursor: null },
  ];
  let slices = 0;
  for (let message = queue.shift(); message; message = queue.shift()) {
    slices++;
    await runIngestSlice(ctx, message, {
      source: files,
      enqueue: async (next) => {
        if (!isVectorIndexMessage(next)) queue.push(next);
      },
    });
  }
  const [doc] = await database.db
    .select()
    .from(documents)
    .where(and(eq(documents.datasetId, datasetId), eq(documents.id, id)));
  return { doc: doc!, slices, rows: await rowsOf(ctx, datasetId, id) };
}

async function rowsOf(ctx: ProjectContext, datasetId: string, documentId: string) {
  const rows = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await listRows(ctx, datasetId, { offset, pageSize: 1000 }, { documentId });
    rows.push(...page);
    if (page.length < 1000) return rows;
  }
}

let server: Server;
let base: string;
const served = new Map<string, { type: string; body: Uint8Array }>();
beforeAll(async () => {
  server = createServer((req, res) => {
    const file = served.get(req.url ?? "");
    if (!file) res.writeHead(404).end("missing");
    else res.writeHead(200, { "content-type": file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function fetchDocument(ctx: ProjectContext, datasetId: string, id: string, path: string) {
  const doc = await createDocument(
    ctx,
    datasetId,
    { id, url: `${base}${path}`, parse_url: true, chunk_size: 500, chunk_overlap: 50 },
    {
      fetchUrl: (url) =>
        fetchSource(url, {
          fetch: (u, init) => fetch(u, init),
          resolveHost: async () => ["127.0.0.1"],
          allowPrivate: true,
        }),
      files: noFiles,
      enqueue: async () => {},
    },
  );
  expect(doc).toMatchObject({ status: "ready" });
  return rowsOf(ctx, datasetId, id);
}

describe("front matter of fetched and uploaded Markdown", () => {
  it("is dropped on both paths, which store the same rows", async () => {
    const { ctx } = await createTenant(database.db, "front-matter");
    const dataset = await createDataset(ctx, { name: "md" }, { embeddingModel: "local/hash" });
    const variants = {
      lf: POST,
      crlf: `\uFEFF${POST.replaceAll("\n", "\r\n")}`,
      toml: POST.replace(/^---$/gm, "+++"),
    };
    for (const [name, source] of Object.entries(variants)) {
      const bytes = encoder.encode(source);
      served.set(`/${name}.md`, { type: "text/markdown; charset=utf-8", body: bytes });
      const fetched = await fetchDocument(ctx, dataset.id, `fetched-${name}`, `/${name}.md`);
      const uploaded = await ingestUpload(ctx, dataset.id, `uploaded-${name}`, {
        name: `${name}.md`,
        type: "text/markdown",
        bytes,
      });
      expect(uploaded.doc).toMatchObject({ status: "ready", error: null });
      for (const rows of [fetched, uploaded.rows]) {
        expect(rows.map((r) => r.data.text)).toEqual([POST_TEXT]);
      }
    }
  });

  it("is dropped from an upload read whole (not UTF-8) too", async () => {
    const { ctx } = await createTenant(database.db, "front-matter-1252");
    const dataset = await createDataset(ctx, { name: "md" }, { embeddingModel: "local/hash" });
    // windows-1252: "é" is the single byte 0xE9, so the file is not UTF-8
    const latin = POST.replace("cool", "fraîche");
    const bytes = Uint8Array.from(latin, (c) => c.charCodeAt(0));
    const type = "text/markdown; charset=windows-1252";
    served.set("/latin.md", { type, body: bytes });
    const fetched = await fetchDocument(ctx, dataset.id, "fetched", "/latin.md");
    const uploaded = await ingestUpload(ctx, dataset.id, "uploaded", {
      name: "latin.md",
      type,
      bytes,
    });
    expect(uploaded.doc).toMatchObject({ status: "ready", error: null });
    const expected = [POST_TEXT.replace("cool", "fraîche")];
    expect(fetched.map((r) => r.data.text)).toEqual(expected);
    expect(uploaded.rows.map((r) => r.data.text)).toEqual(expected);
  });

  it("is dropped from a large upload (as a BOM is), and later slices start where they should", async () => {
    const { ctx } = await createTenant(database.db, "front-matter-large");
    const dataset = await createDataset(ctx, { name: "md" }, { embeddingModel: "local/hash" });
    // Paragraphs that end in three-byte characters: a slice started a few bytes early would
    // begin inside one and fail as invalid UTF-8, or repeat text.
    const paragraphs = Array.from(
      { length: 20_000 },
      (_, i) => `Paragraph ${i} of the long guide, about caves and their rivers 漢字`,
    );
    const files = {
      "long.md": `\uFEFF---\r\ntitle: Long guide\r\ndraft: true\r\n---\r\n${paragraphs.join("\r\n\r\n")}\r\n`,
      // a BOM alone is skipped and counted the same way
      "long.txt": `\uFEFF${paragraphs.join("\n\n")}`,
    };
    for (const [name, source] of Object.entries(files)) {
      const bytes = encoder.encode(source);
      expect(bytes.length).toBeGreaterThan(SLICE_LIMITS.textBytes);
      // without overlap, the rows put back together are the text exactly
      const { doc, slices, rows } = await ingestUpload(
        ctx,
        dataset.id,
        name.replace(".", "-"),
        { name, type: name.endsWith(".md") ? "text/markdown" : "text/plain", bytes },
        0,
      );
      expect(doc, name).toMatchObject({ status: "ready", error: null });
      expect(slices).toBeGreaterThan(1);
      expect(rows.map((r) => r.metadata.chunk)).toEqual(rows.map((_, i) => i));
      expect(rows.map((r) => r.data.text).join("\n\n"), name).toBe(paragraphs.join("\n\n"));
    }
  }, 180_000);
});
