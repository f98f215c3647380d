import { describe, expect, it } from "vitest";
import { filenameFromContentDisposition } from "../src/documents/content-disposition.ts";
import {
  attachmentDisposition,
  createDataset,
  createDocument,
  type FileOpener,
  openDocumentFile,
  type ProjectContext,
  type StoredFile,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { insertFileDocument } from "./support/file-documents.ts";
import { noFiles } from "./support/no-files.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

/** Stored files in memory: R2 itself is exercised end to end through workerd. */
class MemoryFiles implements FileOpener {
  files = new Map<string, { bytes: Uint8Array; contentType: string | null }>();
  async open(key: string): Promise<StoredFile | null> {
    const file = this.files.get(key);
    if (!file) return null;
    const body = new Response(file.bytes.slice().buffer).body!;
    return { body, size: file.bytes.length, contentType: file.contentType };
  }
}

async function storedDocument(
  ctx: ProjectContext,
  datasetId: string,
  id: string,
  file: { name: string; type: string | null; bytes: Uint8Array },
  files: MemoryFiles,
) {
  const key = await insertFileDocument(database.db, {
    projectId: ctx.projectId,
    datasetId,
    id,
    file,
    status: "ready",
  });
  files.files.set(key, { bytes: file.bytes, contentType: file.type });
}

describe("a document's file", () => {
  it("opens the stored file with its name, type and size", async () => {
    const { ctx } = await createTenant(database.db, "files");
    const dataset = await createDataset(ctx, { name: "f" }, { embeddingModel: "local/hash" });
    const files = new MemoryFiles();
    const bytes = Uint8Array.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0, 1, 2, 255]);
    await storedDocument(
      ctx,
      dataset.id,
      "manual",
      { name: "manual.txt", type: "text/plain", bytes },
      files,
    );
    const file = await openDocumentFile(ctx, dataset.id, "manual", files);
    expect(file).toMatchObject({ filename: "manual.txt", contentType: "text/plain", size: 9 });
    expect(new Uint8Array(await new Response(file.body).arrayBuffer())).toEqual(bytes);

    await storedDocument(ctx, dataset.id, "untyped", { name: "a.bin", type: null, bytes }, files);
    const untyped = await openDocumentFile(ctx, dataset.id, "untyped", files);
    expect(untyped.contentType).toBe("application/octet-stream");
  });

  it("is a 404 that says why for a document without a stored file, or a file gone", async () => {
    const { ctx } = await createTenant(database.db, "no-file");
    const dataset = await createDataset(ctx, { name: "n" }, { embeddingModel: "local/hash" });
    const files = new MemoryFiles();
    await createDocument(
      ctx,
      dataset.id,
      { id: "inline", content: "Inline text has no file." },
      {
        fetchUrl: async () => {
          throw new Error("no fetch");
        },
        files: noFiles,
        enqueue: async () => {},
      },
    );
    await expect(openDocumentFile(ctx, dataset.id, "inline", files)).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringMatching(/has no stored file/),
    });
    await storedDocument(
      ctx,
      dataset.id,
      "gone",
      { name: "a.txt", type: "text/plain", bytes: new Uint8Array([65]) },
      files,
    );
    files.files.clear();
    await expect(openDocumentFile(ctx, dataset.id, "gone", files)).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringMatching(/no longer in storage/),
    });
    await expect(openDocumentFile(ctx, dataset.id, "nope", files)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("is a 401 for another project's dataset, as every dataset route", async () => {
    const owner = await createTenant(database.db, "owner");
    const other = await createTenant(database.db, "other");
    const dataset = await createDataset(owner.ctx, { name: "o" }, { embeddingModel: "local/hash" });
    const files = new MemoryFiles();
    await storedDocument(
      owner.ctx,
      dataset.id,
      "d",
      { name: "a.txt", type: "text/plain", bytes: new Uint8Array([65]) },
      files,
    );
    await expect(openDocumentFile(other.ctx, dataset.id, "d", files)).rejects.toMatchObject({
      code: "unauthorized",
    });
  });
});

describe("Content-Disposition of a download", () => {
  it("names a plain ASCII file in one quoted parameter", () => {
    expect(attachmentDisposition("report-2024.pdf")).toBe('attachment; filename="report-2024.pdf"');
    expect(attachmentDisposition("my notes (v2).txt")).toBe(
      'attachment; filename="my notes (v2).txt"',
    );
  });

  it("adds the exact UTF-8 name as filename* (RFC 8187) with an ASCII stand-in", () => {
    expect(attachmentDisposition("résumé.pdf")).toBe(
      `attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`,
    );
    expect(attachmentDisposition("报告 2024.pdf")).toBe(
      `attachment; filename="__ 2024.pdf"; filename*=UTF-8''%E6%8A%A5%E5%91%8A%202024.pdf`,
    );
    // % never reaches the quoted string (some clients decode it); ' ( ) are escaped in
    // filename*; quotes and * were already made _ by the file name rules
    expect(attachmentDisposition(`it's 100% "done" (a*b).txt`)).toBe(
      `attachment; filename="it's 100_ _done_ (a_b).txt"; filename*=UTF-8''it%27s%20100%25%20_done_%20%28a_b%29.txt`,
    );
    expect(attachmentDisposition("back\\slash é.txt")).toBe(
      `attachment; filename="slash _.txt"; filename*=UTF-8''slash%20%C3%A9.txt`,
    );
  });

  it("round-trips through the parser the fetcher uses, and never carries a line break or path", () => {
    for (const name of ["résumé.pdf", "报告.md", "a;b=c.txt", "emoji 🚀.csv", `q"uote.txt`]) {
      const header = attachmentDisposition(name);
      expect(filenameFromContentDisposition(header)).toBe(name.replace(/"/g, "_"));
    }
    const hostile = attachmentDisposition("../../etc/pa\r\nSet-Cookie: x=1\u0000.txt");
    expect(hostile).not.toMatch(/[\r\n\0]/);
    expect(filenameFromContentDisposition(hostile)).toBe("paSet-Cookie_ x=1.txt");
    expect(attachmentDisposition(null)).toBe('attachment; filename="download"');
    expect(attachmentDisposition("..")).toBe('attachment; filename="download"');
  });
});
