import type { Database } from "@quarry/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject } from "../src/admin/create-project.ts";
import { createDataset } from "../src/datasets/create-dataset.ts";
import { getDocument } from "../src/documents/get-document.ts";
import type { IngestMessage } from "../src/ingestion/ingest-message.ts";
import type { ProjectContext } from "../src/shared/context.ts";
import { ConflictError, NotFoundError, UnsupportedMediaTypeError } from "../src/shared/errors.ts";
import {
  assertDocumentIdFree,
  checkUploadPart,
  registerUpload,
  uploadContentType,
  uploadFilename,
  uploadKey,
  uploadSourceKind,
  validateUploadFields,
} from "../src/uploads/index.ts";
import { freshDatabase } from "./support/database.ts";

const text = (s: string) => new TextEncoder().encode(s);
const STANDARD = { kind: "standard", metadataColumns: [] } as const;
const HYBRID = { kind: "hybrid", metadataColumns: [] } as const;

describe("upload fields", () => {
  it("applies the defaults and generates no id itself", () => {
    expect(validateUploadFields({}, STANDARD)).toEqual({
      chunkSize: 1000,
      chunkOverlap: 100,
      documentId: null,
      metadata: {},
    });
  });

  it("parses integers from text and enforces the per-kind maximum", () => {
    expect(
      validateUploadFields({ chunk_size: " 5000 ", chunk_overlap: "0" }, STANDARD),
    ).toMatchObject({ chunkSize: 5000, chunkOverlap: 0 });
    expect(() => validateUploadFields({ chunk_size: "2001" }, HYBRID)).toThrow(
      /chunk_size: must be an integer from 1 to 2000 for hybrid/,
    );
    expect(() => validateUploadFields({ chunk_size: "5001" }, STANDARD)).toThrow(/chunk_size/);
    for (const bad of ["12.5", "1e3", "abc", "0x10", "0"]) {
      expect(() => validateUploadFields({ chunk_size: bad }, STANDARD), bad).toThrow(/chunk_size/);
    }
  });

  it("refuses an overlap that is not smaller than the chunk size", () => {
    expect(() =>
      validateUploadFields({ chunk_size: "200", chunk_overlap: "200" }, STANDARD),
    ).toThrow(/chunk_overlap: must be an integer from 0 to chunk_size - 1/);
    // the default overlap (100) against a small chunk size
    expect(() => validateUploadFields({ chunk_size: "50" }, STANDARD)).toThrow(/chunk_overlap/);
    expect(() => validateUploadFields({ chunk_overlap: "-1" }, STANDARD)).toThrow(/chunk_overlap/);
  });

  it("checks fields one by one while later ones may still come", () => {
    // chunk_size 50 alone is fine so far: chunk_overlap may follow the file part
    expect(validateUploadFields({ chunk_size: "50" }, STANDARD, { complete: false })).toMatchObject(
      { chunkSize: 50 },
    );
    expect(() =>
      validateUploadFields({ chunk_size: "9000" }, STANDARD, { complete: false }),
    ).toThrow(/chunk_size/);
    expect(() =>
      validateUploadFields({ chunk_overlap: "1999" }, HYBRID, { complete: false }),
    ).not.toThrow();
    expect(() =>
      validateUploadFields({ chunk_overlap: "2000" }, HYBRID, { complete: false }),
    ).toThrow(/chunk_overlap/);
    expect(() => validateUploadFields({ metadata: "[1]" }, HYBRID, { complete: false })).toThrow(
      /metadata: must be an object/,
    );
  });

  it("takes the id as document_id or document-id", () => {
    expect(validateUploadFields({ document_id: "a" }, STANDARD).documentId).toBe("a");
    expect(validateUploadFields({ "document-id": "b" }, STANDARD).documentId).toBe("b");
    expect(
      validateUploadFields({ document_id: "c", "document-id": "c" }, STANDARD).documentId,
    ).toBe("c");
    expect(() => validateUploadFields({ document_id: "c", "document-id": "d" }, STANDARD)).toThrow(
      /document-id: differs from document_id/,
    );
    expect(() => validateUploadFields({ document_id: "a/b" }, STANDARD)).toThrow(
      /document_id: may not contain '\/'/,
    );
    expect(() => validateUploadFields({ "document-id": "x".repeat(129) }, STANDARD)).toThrow(
      /document-id: must be 1 to 128/,
    );
  });

  it("treats empty values as absent, as HTML forms send blank inputs", () => {
    expect(
      validateUploadFields(
        { chunk_size: "", chunk_overlap: " ", document_id: "", metadata: "" },
        STANDARD,
      ),
    ).toEqual({ chunkSize: 1000, chunkOverlap: 100, documentId: null, metadata: {} });
  });

  it("validates metadata as the JSON text of an object of supported values", () => {
    expect(
      validateUploadFields(
        { metadata: '{"year":2024,"tags":["a","b"],"draft":false,"rowId":5}' },
        STANDARD,
      ).metadata,
    ).toEqual({ year: 2024, tags: ["a", "b"], draft: false });
    expect(() => validateUploadFields({ metadata: "{year:1}" }, STANDARD)).toThrow(
      /metadata: is not valid JSON/,
    );
    expect(() => validateUploadFields({ metadata: '"text"' }, STANDARD)).toThrow(
      /metadata: must be an object/,
    );
    expect(() => validateUploadFields({ metadata: '{"nested":{"a":1}}' }, STANDARD)).toThrow(
      /metadata\.nested: must be a string, a number, a boolean or an array of strings/,
    );
    expect(() => validateUploadFields({ metadata: '{"list":[1]}' }, STANDARD)).toThrow(
      /metadata\.list\[0\]/,
    );
  });
});

describe("upload parts", () => {
  it("names unknown fields and refuses repeats and misplaced files", () => {
    const seen = new Set<string>();
    expect(checkUploadPart("file", true, seen)).toBe("file");
    expect(checkUploadPart("document-id", false, seen)).toBe("document-id");
    expect(() => checkUploadPart("title", false, seen)).toThrow(/^title: unknown form field/);
    expect(() => checkUploadPart("files", true, seen)).toThrow(/^files: unknown form field/);
    expect(() => checkUploadPart("file", true, new Set(["file"]))).toThrow(/only one file/);
    expect(() => checkUploadPart("metadata", false, new Set(["metadata"]))).toThrow(
      /metadata: given more than once/,
    );
    expect(() => checkUploadPart("file", false, seen)).toThrow(/file: must be a file part/);
    expect(() => checkUploadPart("metadata", true, seen)).toThrow(/must be a text field/);
    expect(() => checkUploadPart("chunk_size", false, seen)).not.toThrow();
  });
});

describe("upload file names and keys", () => {
  it("keeps a readable name and drops directories, controls and dot segments", () => {
    expect(uploadFilename("report 2024.pdf")).toBe("report 2024.pdf");
    expect(uploadFilename("../../etc/passwd")).toBe("passwd");
    expect(uploadFilename("C:\\Users\\me\\notes.md")).toBe("notes.md");
    expect(uploadFilename("a\u0000b\u001fc\u007f.txt")).toBe("abc.txt");
    expect(uploadFilename("..")).toBe("upload");
    expect(uploadFilename("/")).toBe("upload");
    expect(uploadFilename("")).toBe("upload");
    expect(uploadFilename(null)).toBe("upload");
    expect(uploadFilename("€ rates.csv")).toBe("€ rates.csv");
  });

  it("limits a name to 255 UTF-8 bytes, keeping its extension and whole characters", () => {
    const long = uploadFilename(`${"日".repeat(150)}.csv`);
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(255);
    expect(long.endsWith(".csv")).toBe(true);
    expect(long.startsWith("日")).toBe(true);
    expect(long).not.toContain("\ufffd");
  });

  it("builds the key as <dataset>/<document>/<name>", () => {
    expect(uploadKey("ds_1", "doc-1", "a.txt")).toBe("ds_1/doc-1/a.txt");
  });

  it("keeps a sane content type as sent", () => {
    expect(uploadContentType("text/csv; charset=windows-1252")).toBe(
      "text/csv; charset=windows-1252",
    );
    expect(uploadContentType("")).toBeNull();
    expect(uploadContentType(null)).toBeNull();
    expect(uploadContentType("text/plain\u0000")).toBeNull();
  });
});

describe("upload file types", () => {
  const head = text("hello world");
  it("accepts PDF, CSV, text, Markdown and HTML by type, name or first bytes", () => {
    const kind = (contentType: string | null, filename: string | null, bytes = head) =>
      uploadSourceKind({ contentType, filename, head: bytes });
    expect(kind("application/pdf", "a.pdf")).toBe("pdf");
    expect(kind("application/octet-stream", "upload", text("%PDF-1.7\n"))).toBe("pdf");
    expect(kind("text/csv", "data.csv")).toBe("csv");
    expect(kind("text/plain", "notes.md")).toBe("markdown");
    expect(kind(null, "page.html")).toBe("html");
    expect(kind("text/plain", "upload")).toBe("text");
  });

  it("refuses anything else with a 415", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]);
    expect(() =>
      uploadSourceKind({ contentType: "image/png", filename: "a.png", head: png }),
    ).toThrow(UnsupportedMediaTypeError);
    expect(() =>
      uploadSourceKind({
        contentType: null,
        filename: "report.docx",
        head: text("PK\u0003\u0004"),
      }),
    ).toThrow(/cannot be parsed; upload PDF, CSV, plain text, Markdown or HTML/);
  });

  it("decides by the first bytes: a PDF named .txt is a PDF, binary named .txt a 415", () => {
    const pdf = text("%PDF-1.5\n%\u00e2\u00e3\n1 0 obj");
    expect(uploadSourceKind({ contentType: "text/plain", filename: "manual.txt", head: pdf })).toBe(
      "pdf",
    );
    const binary = Uint8Array.from({ length: 512 }, (_, i) => (i * 7919) % 256);
    expect(() =>
      uploadSourceKind({ contentType: "text/plain", filename: "manual.txt", head: binary }),
    ).toThrow(
      /^file: the content is binary data, not text and not a PDF, although its type or name \(text\/plain, manual\.txt\) says text/,
    );
  });
});

describe("registering an upload", () => {
  let db: Database;
  let close: () => Promise<void>;
  let ctx: ProjectContext;
  let datasetId: string;
  const stored = (documentId: string) => ({
    key: uploadKey(datasetId, documentId, "notes.txt"),
    filename: "notes.txt",
    contentType: "text/plain",
  });
  const fields = (documentId: string) => ({
    documentId,
    chunkSize: 400,
    chunkOverlap: 40,
    metadata: { team: "search" },
  });

  beforeAll(async () => {
    const fresh = await freshDatabase();
    db = fresh.db;
    close = () => fresh.close();
    const project = await createProject(db, { name: "uploads" });
    ctx = { db, projectId: project.id, loaded: new Map() };
    datasetId = (await createDataset(ctx, { name: "files" }, { embeddingModel: "local/hash" })).id;
  });
  afterAll(() => close());

  it("creates the document queued with its url, fields and metadata, then sends its message", async () => {
    const sent: IngestMessage[] = [];
    const reply = await registerUpload(ctx, datasetId, fields("doc-1"), stored("doc-1"), {
      enqueue: async (m) => {
        sent.push(m);
      },
    });
    expect(reply).toEqual({ body: "OK", document_id: "doc-1" });
    expect(sent).toEqual([
      { v: 1, projectId: ctx.projectId, datasetId, documentId: "doc-1", cursor: null },
    ]);
    const doc = await getDocument(ctx, datasetId, "doc-1");
    expect(doc).toMatchObject({
      id: "doc-1",
      dataset_id: datasetId,
      filename: "notes.txt",
      url: `/${datasetId}/doc-1/notes.txt`,
      status: "queued",
      progress: null,
      metadata: { team: "search" },
    });
  });

  it("refuses a duplicate id with a 409 and sends nothing", async () => {
    await expect(assertDocumentIdFree(ctx, datasetId, "doc-1")).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(assertDocumentIdFree(ctx, datasetId, "doc-free")).resolves.toBeUndefined();
    let sends = 0;
    const again = registerUpload(ctx, datasetId, fields("doc-1"), stored("doc-1"), {
      enqueue: async () => {
        sends++;
      },
    });
    await expect(again).rejects.toThrow(/document 'doc-1' already exists/);
    expect(sends).toBe(0);
  });

  it("removes the document again when the message cannot be sent", async () => {
    const failing = registerUpload(ctx, datasetId, fields("doc-2"), stored("doc-2"), {
      enqueue: async () => {
        throw new Error("queue unavailable");
      },
    });
    await expect(failing).rejects.toThrow("queue unavailable");
    await expect(getDocument(ctx, datasetId, "doc-2")).rejects.toBeInstanceOf(NotFoundError);
    // the id is free for the retry
    await registerUpload(ctx, datasetId, fields("doc-2"), stored("doc-2"), {
      enqueue: async () => {},
    });
  });

  it("places the file after reserving the id and before the message, rolling back on failure", async () => {
    const order: string[] = [];
    await registerUpload(ctx, datasetId, fields("doc-3"), stored("doc-3"), {
      place: async () => {
        order.push("place");
        // the id is already reserved when the file is moved into its key
        await expect(assertDocumentIdFree(ctx, datasetId, "doc-3")).rejects.toThrow();
      },
      enqueue: async () => {
        order.push("enqueue");
      },
    });
    expect(order).toEqual(["place", "enqueue"]);
    const failing = registerUpload(ctx, datasetId, fields("doc-4"), stored("doc-4"), {
      place: async () => {
        throw new Error("copy failed");
      },
      enqueue: async () => {
        order.push("never");
      },
    });
    await expect(failing).rejects.toThrow("copy failed");
    expect(order).not.toContain("never");
    await expect(getDocument(ctx, datasetId, "doc-4")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("scopes by project: another project's dataset is not found for this caller", async () => {
    const other = await createProject(db, { name: "other" });
    const otherCtx = { db, projectId: other.id };
    await expect(
      registerUpload(otherCtx, datasetId, fields("x"), stored("x"), { enqueue: async () => {} }),
    ).rejects.toThrow(/not valid for this dataset's project/);
  });
});
