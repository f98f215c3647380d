import { beforeAll, describe, expect, it } from "vitest";
import { buildPdf } from "../../../packages/core/test/parsing/support/pdf-builder.ts";
import { baseUrl, call, expectEnvelope, type Reply } from "./support/client.ts";
import { postDataset } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";
import { fileForm, postForm, settledDocument } from "./support/upload.ts";

/**
 * Issue 15 items 3 and 4 end to end through workerd, local R2 and the Queue: a file's type is
 * decided by its bytes (a PDF named .txt is parsed as a PDF; binary named .txt is refused),
 * the original file can be downloaded, and rows say where they come from (`chunk`, `page`).
 */

let tenant: Tenant;
let other: Tenant;
let datasetId: string;

beforeAll(async () => {
  tenant = await createTenant("document-files");
  other = await createTenant("document-files-other");
  const ds = await postDataset(tenant.key, { name: "citable", kind: "hybrid" });
  expect(ds.status).toBe(201);
  datasetId = ds.body.id;
});

const upload = (...file: Parameters<typeof fileForm>): Promise<Reply> =>
  postForm(`/api/datasets/${datasetId}/upload`, fileForm(...file), tenant.key);

const settled = (id: string) => settledDocument(datasetId, id, tenant.key);

type Row = { id: number; data: Record<string, string>; metadata: Record<string, unknown> };

async function rowsWhere(filter: unknown): Promise<Row[]> {
  const query = encodeURIComponent(JSON.stringify(filter));
  const reply = await call(`/api/datasets/${datasetId}/rows?page_size=1000&filter=${query}`, {
    token: tenant.key,
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body;
}

/** Eight pages whose words name their page: `p3w12` is the 13th word of page 3. */
function pagedPdf(): Uint8Array {
  return buildPdf({
    compress: true,
    pages: Array.from({ length: 8 }, (_, p) => ({
      runs: Array.from({ length: 6 }, (_, line) => ({
        text: Array.from({ length: 10 }, (_, w) => `p${p + 1}w${line * 10 + w}`).join(" "),
      })),
    })),
  });
}

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let seed = 3;
  for (let i = 0; i < length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    bytes[i] = seed >>> 24;
  }
  return bytes;
}

const fileOf = (id: string, token: string | null = tenant.key) =>
  fetch(`${baseUrl()}/api/datasets/${datasetId}/documents/${encodeURIComponent(id)}/file`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

describe("the type of an upload is decided by its bytes", () => {
  it("parses a PDF named .txt (sent as text/plain) as a PDF, rows carrying page and chunk", async () => {
    const reply = await upload("manual.txt", "text/plain", pagedPdf(), {
      document_id: "manual",
      chunk_size: "200",
      chunk_overlap: "0",
      metadata: '{"page":99,"chunk":-1,"team":"docs"}',
    });
    expect(reply.status, reply.text).toBe(200);
    const doc = await settled("manual");
    expect(doc).toMatchObject({ status: "ready", error: null });
    expect(doc.progress).toMatchObject({ unit: "pages", done: 8, total: 8 });

    const rows = await rowsWhere({ documentId: "manual" });
    expect(rows.length).toBeGreaterThan(8);
    expect(rows.map((r) => r.metadata.chunk)).toEqual(rows.map((_, i) => i));
    for (const row of rows) {
      expect(row.data.text).not.toContain("%PDF");
      expect(row.metadata.team).toBe("docs");
      // the page of the row's first word
      expect(row.metadata.page, row.data.text).toBe(Number(/^p(\d+)w/.exec(row.data.text!)?.[1]));
    }
    expect(new Set(rows.map((r) => r.metadata.page)).size).toBe(8);

    // filters read them like any metadata: E6 …
    const onPage3 = await rowsWhere({ documentId: "manual", page: 3 });
    expect(onPage3.length).toBeGreaterThan(0);
    expect(onPage3.every((r) => r.data.text!.startsWith("p3w"))).toBe(true);
    const firstThree = await rowsWhere({ documentId: "manual", chunk: { $lt: 3 } });
    expect(firstThree.map((r) => r.id)).toEqual(rows.slice(0, 3).map((r) => r.id));
    // … and E2, whose results can then be cited with a page
    const search = await call(`/api/datasets/${datasetId}/search`, {
      method: "POST",
      token: tenant.key,
      body: { query: "p5w12", top_k: 3, filter: { page: { $gte: 5, $lte: 5 } } },
    });
    expect(search.status, search.text).toBe(200);
    const results = search.body.results as { metadata: Record<string, unknown> }[];
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(result.metadata).toMatchObject({ page: 5 });
  });

  it("refuses binary data named .txt with 415 before storing it, and keeps nothing", async () => {
    const reply = await upload("manual.txt", "text/plain", randomBytes(20_000), {
      document_id: "junk",
    });
    const error = expectEnvelope(reply, 415, "unsupported_media_type");
    expect(error.message).toMatch(/binary/);
    const doc = await call(`/api/datasets/${datasetId}/documents/junk`, { token: tenant.key });
    expectEnvelope(doc, 404, "not_found");
    expect(await rowsWhere({ documentId: "junk" })).toEqual([]);
  });

  it("fails a text file that turns binary after its first bytes with a reason, storing no rows", async () => {
    const bytes = new Uint8Array(4096 + 50_000);
    bytes.set(new TextEncoder().encode("Words of text. ".repeat(300)).subarray(0, 4096));
    bytes.set(randomBytes(50_000), 4096);
    const reply = await upload("notes.txt", "text/plain", bytes, { document_id: "glued" });
    expect(reply.status, reply.text).toBe(200);
    const doc = await settled("glued");
    expect(doc.status).toBe("failed");
    expect(doc.error).toMatch(/binary data, not text/);
    expect(doc.row_count).toBe(0);
    expect(await rowsWhere({ documentId: "glued" })).toEqual([]);
  });
});

describe("GET …/documents/{document_id}/file", () => {
  it("streams the original file back byte for byte, as an attachment with its name", async () => {
    const bytes = pagedPdf();
    const reply = await upload("Résumé 2024.pdf", "application/pdf", bytes, {
      document_id: "resume",
    });
    expect(reply.status, reply.text).toBe(200);
    const res = await fileOf("resume");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="R_sum_ 2024.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%202024.pdf`,
    );
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  });

  it("keeps the type the file was uploaded with, and works before ingestion ends", async () => {
    const bytes = new TextEncoder().encode(
      "<html><body><p>Inert.</p><script>x()</script></body></html>",
    );
    const reply = await upload("page.html", "text/html", bytes, { document_id: "page" });
    expect(reply.status).toBe(200);
    const res = await fileOf("page");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="page.html"');
    // never rendered with the API origin's rights, even by a client that ignores attachment
    expect(res.headers.get("content-security-policy")).toMatch(/sandbox/);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  it("is a 404 with the envelope for a document without a file, and for unknown ids", async () => {
    const created = await call(`/api/datasets/${datasetId}/documents`, {
      method: "POST",
      token: tenant.key,
      body: { id: "inline", content: "Inline content is stored as rows only." },
    });
    expect(created.status).toBe(200);
    const parse = async (res: Response): Promise<Reply> => {
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: JSON.parse(text), text };
    };
    const inline = expectEnvelope(await parse(await fileOf("inline")), 404, "not_found");
    expect(inline.message).toMatch(/has no stored file/);
    expectEnvelope(await parse(await fileOf("nope")), 404, "not_found");
    const wrongDataset = await fetch(`${baseUrl()}/api/datasets/ds_nope/documents/resume/file`, {
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expectEnvelope(await parse(wrongDataset), 404, "not_found");
  });

  it("needs a key of the dataset's project: 401 without one or with another project's", async () => {
    const parse = async (res: Response): Promise<Reply> => {
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: JSON.parse(text), text };
    };
    expectEnvelope(await parse(await fileOf("resume", null)), 401, "unauthorized");
    expectEnvelope(await parse(await fileOf("resume", other.key)), 401, "unauthorized");
  });

  it("is described in the OpenAPI document", async () => {
    const doc = await call("/openapi.json");
    const operation = doc.body.paths["/api/datasets/{id}/documents/{document_id}/file"]?.get;
    expect(operation).toMatchObject({ operationId: "downloadDocumentFile" });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "401", "404"]));
    expect(operation.responses["200"].content).toHaveProperty("application/octet-stream");
  });
});
