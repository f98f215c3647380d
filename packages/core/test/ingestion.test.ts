import { type Database, documents } from "@quarry/db";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  createDataset,
  type IngestMessage,
  indexVectorBacklog,
  ingestFailureReason,
  isPermanentIngestFailure,
  isVectorIndexMessage,
  listRows,
  type ProjectContext,
  type QueueMessage,
  runIngestSlice,
  SLICE_LIMITS,
} from "../src/index.ts";
import { buildPdf } from "./parsing/support/pdf-builder.ts";
import { useFreshDatabase } from "./support/database.ts";
import { insertFileDocument, MemorySources } from "./support/file-documents.ts";
import { SMALL_GRAPH } from "./support/small-graph.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

/** A seeded PRNG so a failing fault schedule can be replayed. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function queuedDocument(
  ctx: ProjectContext,
  datasetId: string,
  id: string,
  file: { name: string; type: string; bytes: Uint8Array },
  files: MemorySources,
) {
  const key = await insertFileDocument(database.db, {
    projectId: ctx.projectId,
    datasetId,
    id,
    file,
    status: "queued",
    metadata: { source: "upload" },
    chunkSize: 500,
    chunkOverlap: 50,
  });
  files.files.set(key, file.bytes);
  return {
    v: 1,
    projectId: ctx.projectId,
    datasetId,
    documentId: id,
    cursor: null,
  } as IngestMessage;
}

/**
 * `db` whose statements (`execute`) can be lost as with a dropped connection: before one runs
 * (when `before()` says so: nothing happens) or after it committed (`after()`: its reply lost).
 */
function losingConnections(
  db: Database,
  lose: { before: () => boolean; after: () => boolean },
): Database {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== "execute") return Reflect.get(target, property, receiver);
      return (async (query: Parameters<Database["execute"]>[0]) => {
        if (lose.before()) throw new Error("connection lost before the statement ran");
        const result = await target.execute(query);
        if (lose.after()) throw new Error("connection lost after the statement committed");
        return result;
      }) as unknown as Database["execute"];
    },
  });
}

/**
 * Delivers messages like a queue that fails and redelivers: each delivery may fail before any
 * write (storage read), at any of its statements, before it ran or after it committed (a
 * connection lost: some parts of the slice's rows stored and others not, in any order, or the
 * progress moved), after the progress moved (the enqueue of the next slice), or be delivered
 * twice.
 */
async function drain(
  ctx: ProjectContext,
  first: IngestMessage,
  files: MemorySources,
  faults: {
    seed: number;
    failRead: number;
    loseReply: number;
    failEnqueue: number;
    duplicate: number;
  },
) {
  const random = prng(faults.seed);
  const lost = { statements: 0, replies: 0 };
  const db = losingConnections(ctx.db, {
    before: () => random() < faults.loseReply && ++lost.statements > 0,
    after: () => random() < faults.loseReply && ++lost.replies > 0,
  });
  const queue: QueueMessage[] = [first];
  let deliveries = 0;
  while (queue.length > 0) {
    if (++deliveries > 10_000) throw new Error("ingestion did not converge");
    const message = queue.shift()!;
    if (isVectorIndexMessage(message)) {
      // as the consumer does: a bounded amount, then the rest in a new message
      const progress = await indexVectorBacklog(ctx.db, message.datasetId, 3000);
      if (progress.pending > 0) queue.push(message);
      if (random() < faults.duplicate) queue.push(message);
      continue;
    }
    if (random() < faults.failRead) files.failNextReads = 1;
    const failEnqueue = random() < faults.failEnqueue;
    try {
      await runIngestSlice({ ...ctx, db }, message, {
        source: files,
        enqueue: async (next) => {
          if (failEnqueue) throw new Error("queue unavailable");
          queue.push(next);
        },
      });
      if (random() < faults.duplicate) queue.push(message);
    } catch (error) {
      if (isPermanentIngestFailure(error)) throw error;
      queue.push(message); // redelivery
    }
    files.failNextReads = 0;
  }
  return { deliveries, lost };
}

const encoder = new TextEncoder();

function csvOf(n: number) {
  const lines = ["text,n,note"];
  for (let i = 0; i < n; i++) {
    const note = i % 7 === 0 ? `"line one\r\nline two, with comma ""quoted"""` : `plain ${i}`;
    lines.push(`"row ${i} ${"lorem ipsum ".repeat(20)}",${i},${note}`);
  }
  return encoder.encode(`\uFEFF${lines.join("\r\n")}\r\n`);
}

describe("ingestion slices", () => {
  it("ingests a CSV in bounded slices, exactly once, under random faults and redelivery", async () => {
    const { ctx } = await createTenant(database.db, "ingest");
    const dataset = await createDataset(
      ctx,
      { name: "csv", metadata_columns: [{ name: "n", type: "number" }] },
      { embeddingModel: "local/hash", graph: SMALL_GRAPH },
    );
    const files = new MemorySources();
    const n = 8000; // ~2.2 MB: more than two 1 MB windows
    const bytes = csvOf(n);
    expect(bytes.length).toBeGreaterThan(SLICE_LIMITS.csvBytes);
    for (const seed of [1, 2]) {
      const id = `faulty-${seed}`;
      const first = await queuedDocument(
        ctx,
        dataset.id,
        id,
        { name: "data.csv", type: "text/csv", bytes },
        files,
      );
      const { deliveries, lost } = await drain(ctx, first, files, {
        seed,
        failRead: 0.3,
        loseReply: 0.15,
        failEnqueue: 0.3,
        duplicate: 0.3,
      });
      expect(deliveries).toBeGreaterThan(2);
      expect(lost.statements).toBeGreaterThan(2);
      expect(lost.replies).toBeGreaterThan(2);
      const [doc] = await database.db
        .select()
        .from(documents)
        .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, id)));
      expect(doc).toMatchObject({ status: "ready" });
      expect(doc!.progress).toEqual({
        unit: "bytes",
        done: bytes.length,
        total: bytes.length,
        rows: n,
      });
      const rows = await listRows(
        ctx,
        dataset.id,
        { offset: 0, pageSize: 1000 },
        { documentId: id, n: { $lt: 1000 } },
      );
      expect(rows.map((r) => r.metadata.n)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
      expect(rows[7]!.data.note).toBe('line one\r\nline two, with comma "quoted"');
      expect(rows[0]!.metadata.source).toBe("upload");
      let total = 0;
      for (let offset = 0; ; offset += 1000) {
        const page = await listRows(
          ctx,
          dataset.id,
          { offset, pageSize: 1000 },
          { documentId: id },
        );
        // Listed in file order (row ids are the slice's, reserved once whatever failed), and
        // `chunk` is the record's place in the file, counted on across slices.
        expect(page.map((row) => row.metadata.n)).toEqual(
          Array.from({ length: page.length }, (_, i) => total + i),
        );
        for (const row of page) expect(row.metadata.chunk).toBe(row.metadata.n);
        total += page.length;
        if (page.length < 1000) break;
      }
      expect(total).toBe(n);
      const later = await listRows(
        ctx,
        dataset.id,
        { offset: 0, pageSize: 1000 },
        { documentId: id, chunk: { $gte: 7990 } },
      );
      expect(later.map((r) => r.metadata.n)).toEqual(
        Array.from({ length: 10 }, (_, i) => 7990 + i),
      );
      // The last slice asked for the graph: every row is in it once, none waits.
      const vectors = (await database.db.execute(sql`
        SELECT (SELECT count(*) FROM vector_backlog WHERE dataset_id = ${dataset.id})::int AS pending,
               (SELECT count(*) FROM indexed_vectors v JOIN rows r ON r.id = v.row_id
                WHERE r.document_id = ${id} AND r.dataset_id = ${dataset.id})::int AS indexed`)) as unknown as {
        rows: unknown[];
      };
      expect(vectors.rows[0]).toEqual({ pending: 0, indexed: n });
    }
  }, 300_000);

  it("finishes a slice whose first part failed after a later part was stored, in file order", async () => {
    const { ctx } = await createTenant(database.db, "ingest");
    const dataset = await createDataset(
      ctx,
      { name: "parts", metadata_columns: [{ name: "n", type: "number" }] },
      { embeddingModel: "local/hash", graph: SMALL_GRAPH },
    );
    const files = new MemorySources();
    const n = 1600; // one slice, four parts
    const first = await queuedDocument(
      ctx,
      dataset.id,
      "cut-short",
      { name: "data.csv", type: "text/csv", bytes: csvOf(n) },
      files,
    );
    // The slice's statements: reserving its row ids, then its parts, two at a time. The first
    // part's connection fails before it runs; the second part, already under way, is stored.
    let statements = 0;
    const db = losingConnections(ctx.db, { before: () => ++statements === 2, after: () => false });
    const deps = { source: files, enqueue: async () => {} };
    await expect(runIngestSlice({ ...ctx, db }, first, deps)).rejects.toThrow("connection lost");
    const stored = async () =>
      (
        (await database.db.execute(sql`
          SELECT (metadata ->> 'n')::int AS n FROM rows
          WHERE dataset_id = ${dataset.id} AND document_id = 'cut-short' ORDER BY id`)) as unknown as {
          rows: { n: number }[];
        }
      ).rows.map((row) => row.n);
    expect(await stored()).toEqual(Array.from({ length: 500 }, (_, i) => 500 + i));

    expect(await runIngestSlice(ctx, first, deps)).toBe("done");
    // Every row once, listed (by id) in file order: the retry used the ids reserved first.
    expect(await stored()).toEqual(Array.from({ length: n }, (_, i) => i));
    const [doc] = await database.db
      .select()
      .from(documents)
      .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, "cut-short")));
    expect(doc).toMatchObject({ status: "ready", progress: { rows: n } });
    const left = (await database.db.execute(sql`
      SELECT (SELECT count(*) FROM ingest_slices WHERE dataset_id = ${dataset.id})::int AS slices,
             (SELECT count(*) FROM ingest_slice_parts WHERE dataset_id = ${dataset.id})::int AS parts
    `)) as unknown as { rows: unknown[] };
    expect(left.rows[0]).toEqual({ slices: 0, parts: 0 });
  });

  it("ingests UTF-8 text across windows without losing or repeating text", async () => {
    const { ctx } = await createTenant(database.db, "text");
    const dataset = await createDataset(
      ctx,
      { name: "text" },
      { embeddingModel: "local/hash", graph: SMALL_GRAPH },
    );
    const files = new MemorySources();
    const paragraphs = Array.from(
      { length: 12_000 },
      (_, i) =>
        `Paragraph ${i}: ünïcödé text — with 漢字 and emoji 🚀 so windows cut multi-byte characters.`,
    );
    const bytes = encoder.encode(paragraphs.join("\n\n"));
    expect(bytes.length).toBeGreaterThan(SLICE_LIMITS.textBytes);
    const first = await queuedDocument(
      ctx,
      dataset.id,
      "t",
      { name: "notes.txt", type: "text/plain", bytes },
      files,
    );
    await drain(ctx, first, files, {
      seed: 9,
      failRead: 0.2,
      loseReply: 0.1,
      failEnqueue: 0.2,
      duplicate: 0.2,
    });
    const rows = [
      ...(await listRows(ctx, dataset.id, { offset: 0, pageSize: 1000 })),
      ...(await listRows(ctx, dataset.id, { offset: 1000, pageSize: 1000 })),
      ...(await listRows(ctx, dataset.id, { offset: 2000, pageSize: 1000 })),
      ...(await listRows(ctx, dataset.id, { offset: 3000, pageSize: 1000 })),
    ];
    expect(rows.length).toBeLessThan(4000);
    // each row's place in the document, unbroken across the 1 MB windows and redeliveries
    expect(rows.map((r) => r.metadata.chunk)).toEqual(rows.map((_, i) => i));
    expect(rows.every((r) => r.metadata.page === undefined)).toBe(true);
    const text = rows.map((r) => r.data.text).join("\n");
    for (const i of [0, 1, 2499, 6000, 11_999]) expect(text).toContain(paragraphs[i]);
    for (const row of rows) expect(row.data.text!.length).toBeLessThanOrEqual(500);
    const seen = new Set<number>();
    for (const row of rows) {
      for (const m of row.data.text!.matchAll(/Paragraph (\d+):/g)) seen.add(Number(m[1]));
    }
    expect(seen.size).toBe(12_000);
  }, 300_000);

  it("reads a PDF named .txt as a PDF: rows say the page they start on and their place", async () => {
    const { ctx } = await createTenant(database.db, "pdf-pages");
    const dataset = await createDataset(ctx, { name: "pdf" }, { embeddingModel: "local/hash" });
    const files = new MemorySources();
    // 30 pages (two slices of 25), each ten lines of words that name their page: w12x3 is
    // the fourth word of page 12. Chunks of 500 characters run across page breaks; a page
    // (~700 characters) holds the start of one chunk at least.
    const words = (page: number) => Array.from({ length: 100 }, (_, k) => `w${page}x${k}`);
    const pages = Array.from({ length: 30 }, (_, i) => ({
      runs: Array.from({ length: 10 }, (_, line) => ({
        text: words(i + 1)
          .slice(line * 10, line * 10 + 10)
          .join(" "),
      })),
    }));
    const bytes = buildPdf({ pages, compress: true });
    const first = await queuedDocument(
      ctx,
      dataset.id,
      "manual",
      { name: "manual.txt", type: "text/plain", bytes },
      files,
    );
    await drain(ctx, first, files, {
      seed: 4,
      failRead: 0.2,
      loseReply: 0.1,
      failEnqueue: 0.2,
      duplicate: 0.2,
    });
    const [doc] = await database.db
      .select()
      .from(documents)
      .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, "manual")));
    expect(doc).toMatchObject({ status: "ready", error: null });
    expect(doc!.progress).toMatchObject({ unit: "pages", done: 30, total: 30 });
    const rows = await listRows(ctx, dataset.id, { offset: 0, pageSize: 1000 });
    expect(rows.length).toBeGreaterThan(30);
    expect(rows.map((r) => r.metadata.chunk)).toEqual(rows.map((_, i) => i));
    for (const row of rows) {
      expect(row.data.text).not.toContain("%PDF");
      const startsOn = Number(/^w(\d+)x/.exec(row.data.text!)?.[1]);
      expect(row.metadata.page, row.data.text).toBe(startsOn);
    }
    const pagesSeen = new Set(rows.map((r) => r.metadata.page));
    expect(pagesSeen.size).toBe(30);
    // both are filterable like any metadata
    const onPage26 = await listRows(ctx, dataset.id, { offset: 0, pageSize: 1000 }, { page: 26 });
    expect(onPage26.length).toBeGreaterThan(0);
    expect(onPage26.every((r) => r.data.text!.startsWith("w26x"))).toBe(true);
    const firstTen = await listRows(
      ctx,
      dataset.id,
      { offset: 0, pageSize: 1000 },
      { chunk: { $lt: 10 } },
    );
    expect(firstTen.map((r) => r.id)).toEqual(rows.slice(0, 10).map((r) => r.id));
  }, 120_000);

  it("fails binary data named as text with a reason, and stores none of it", async () => {
    const { ctx } = await createTenant(database.db, "binary");
    const dataset = await createDataset(ctx, { name: "bin" }, { embeddingModel: "local/hash" });
    const files = new MemorySources();
    const random = new Uint8Array(200_000);
    let seed = 11;
    for (let i = 0; i < random.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      random[i] = seed >>> 24;
    }
    // text for the first KB (what the upload sniffs), then a binary blob
    const glued = new Uint8Array(2048 + random.length);
    glued.set(encoder.encode("Plain words. ".repeat(2048 / 13 + 1)).subarray(0, 2048));
    glued.set(random, 2048);
    const cases = [
      { id: "random.txt", file: { name: "manual.txt", type: "text/plain", bytes: random } },
      { id: "random.csv", file: { name: "data.csv", type: "text/csv", bytes: random } },
      { id: "random.md", file: { name: "a.md", type: "application/octet-stream", bytes: random } },
      { id: "glued.txt", file: { name: "notes.txt", type: "text/plain", bytes: glued } },
    ];
    for (const { id, file } of cases) {
      const first = await queuedDocument(ctx, dataset.id, id, file, files);
      const attempt = runIngestSlice(ctx, first, { source: files, enqueue: async () => {} });
      await expect(attempt, id).rejects.toSatisfy(isPermanentIngestFailure);
      await expect(
        runIngestSlice(ctx, first, { source: files, enqueue: async () => {} }),
      ).rejects.toThrow(/binary/);
    }
    expect(await listRows(ctx, dataset.id, { offset: 0, pageSize: 10 })).toEqual([]);
  });

  it("fails a document whose file cannot be parsed, with a reason", async () => {
    const { ctx } = await createTenant(database.db, "bad");
    const dataset = await createDataset(ctx, { name: "bad" }, { embeddingModel: "local/hash" });
    const files = new MemorySources();
    const first = await queuedDocument(
      ctx,
      dataset.id,
      "broken",
      {
        name: "broken.pdf",
        type: "application/pdf",
        bytes: encoder.encode("%PDF-1.7\nnot really a pdf"),
      },
      files,
    );
    const attempt = runIngestSlice(ctx, first, { source: files, enqueue: async () => {} });
    await expect(attempt).rejects.toSatisfy(isPermanentIngestFailure);
  });

  it("stores text and CSV files with stray NUL bytes, without the NULs", async () => {
    const { ctx } = await createTenant(database.db, "nul");
    const dataset = await createDataset(ctx, { name: "nul" }, { embeddingModel: "local/hash" });
    const files = new MemorySources();
    const cases = [
      { name: "notes.txt", type: "text/plain", bytes: encoder.encode("alpha\u0000 beta\n\ngamma") },
      {
        name: "data.csv",
        type: "text/csv",
        bytes: encoder.encode("text,n\nal\u0000pha,1\nbeta,2\u0000\n"),
      },
    ];
    for (const file of cases) {
      const first = await queuedDocument(ctx, dataset.id, file.name, file, files);
      await drain(ctx, first, files, {
        seed: 3,
        failRead: 0,
        loseReply: 0,
        failEnqueue: 0,
        duplicate: 0,
      });
      const [doc] = await database.db
        .select()
        .from(documents)
        .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, file.name)));
      expect(doc).toMatchObject({ status: "ready", error: null });
    }
    const rows = await listRows(ctx, dataset.id, { offset: 0, pageSize: 10 });
    expect(rows.map((r) => r.data)).toEqual([
      { text: "alpha beta\n\ngamma" },
      { text: "alpha", n: "1" },
      { text: "beta", n: "2" },
    ]);
  });

  it("tells a refused database write by the database's reason, never by its SQL and rows", async () => {
    const { ctx } = await createTenant(database.db, "reason");
    const dataset = await createDataset(ctx, { name: "r" }, { embeddingModel: "local/hash" });
    const failed = await database.db
      .insert(documents)
      .values({
        projectId: ctx.projectId,
        datasetId: dataset.id,
        id: "secret-row-text",
        filename: "a\u0000b",
        url: "/x",
        status: "queued",
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(Error);
    const reason = ingestFailureReason(failed);
    expect(reason).toMatch(/^the database refused the write: \S/);
    expect(reason).not.toMatch(/insert|secret-row-text/i);
    expect(ingestFailureReason(new Error("storage unavailable"))).toBe("storage unavailable");
  });
});
