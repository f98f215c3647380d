import { beforeAll, describe, expect, it } from "vitest";
import { buildPdf } from "../../../packages/core/test/parsing/support/pdf-builder.ts";
import { call } from "./support/client.ts";
import { postDataset } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";
import { fileForm, postForm, settledDocument } from "./support/upload.ts";

let tenant: Tenant;
let datasetId: string;
beforeAll(async () => {
  tenant = await createTenant("ingest");
  const ds = await postDataset(tenant.key, {
    name: "ingest",
    kind: "hybrid",
    metadata_columns: [{ name: "year", type: "number" }],
  });
  datasetId = ds.body.id;
});

async function upload(...file: Parameters<typeof fileForm>) {
  const reply = await postForm(`/api/datasets/${datasetId}/upload`, fileForm(...file), tenant.key);
  expect(reply.status, reply.text).toBe(200);
  const body = reply.body as { body: string; document_id: string };
  expect(body.body).toBe("OK");
  return body.document_id;
}

/** Waits for the ingest worker (Queue consumer) to finish the document. */
const settled = (id: string) => settledDocument(datasetId, id, tenant.key);

/**
 * Waits for the ingest worker to move the dataset's vector backlog into its graph: the last
 * slice of a document asks for it.
 */
async function vectorsIndexed() {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const dataset = await call(`/api/datasets/${datasetId}`, { token: tenant.key });
    expect(dataset.status).toBe(200);
    if (dataset.body.vector_index.pending_rows === 0) return;
    if (Date.now() > deadline) throw new Error(`vectors still pending: ${dataset.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function rowsOf(id: string) {
  const filter = encodeURIComponent(JSON.stringify({ documentId: id }));
  const reply = await call(`/api/datasets/${datasetId}/rows?page_size=1000&filter=${filter}`, {
    token: tenant.key,
  });
  return reply.body as { data: Record<string, string>; metadata: Record<string, unknown> }[];
}

describe("upload → queue → ingest worker → rows", () => {
  it("ingests a CSV: text embedded, other columns data, declared metadata typed", async () => {
    const csv =
      '\uFEFFtext,year,source\r\n"Tides follow the moon, mostly",2020,almanac\r\n"Second ""quoted"" line\nwith a break",2021,notes\r\n';
    const id = await upload("tides.csv", "text/csv", csv, { metadata: '{"batch":"b1"}' });
    const doc = await settled(id);
    expect(doc).toMatchObject({
      status: "ready",
      row_count: 2,
      error: null,
      url: `/${datasetId}/${id}/tides.csv`,
    });
    expect(doc.progress).toMatchObject({ unit: "bytes", rows: 2 });
    await vectorsIndexed();
    const rows = await rowsOf(id);
    expect(rows.map((r) => [r.data, r.metadata.year, r.metadata.batch, r.metadata.url])).toEqual([
      [
        { text: "Tides follow the moon, mostly", source: "almanac" },
        2020,
        "b1",
        `/${datasetId}/${id}/tides.csv`,
      ],
      [
        { text: 'Second "quoted" line\nwith a break', source: "notes" },
        2021,
        "b1",
        `/${datasetId}/${id}/tides.csv`,
      ],
    ]);
  });

  it("ingests text, Markdown, HTML and a PDF with CJK text", async () => {
    const text = await upload(
      "notes.txt",
      "text/plain",
      "Plain notes about volcanoes.\n\nThey erupt.",
    );
    const markdown = await upload(
      "guide.md",
      "text/markdown",
      "# Guide\n\nCaves are cool and damp.",
    );
    const html = await upload(
      "page.html",
      "text/html",
      "<html><body><nav>Menu Home</nav><article><p>Coral reefs host fish.</p></article><footer>Legal</footer></body></html>",
    );
    const pdf = await upload(
      "paper.pdf",
      "application/pdf",
      buildPdf({
        pages: [
          { runs: [{ text: "Glaciers carve valleys." }] },
          { runs: [{ text: "冰川雕刻山谷", font: "chinese" }] },
        ],
      }),
    );
    const all = (await Promise.all([text, markdown, html, pdf].map(rowsAfter))).map((rows) =>
      rows.map((r) => r.data.text).join("\n"),
    );
    expect(all[0]).toContain("Plain notes about volcanoes.");
    expect(all[1]).toContain("Caves are cool and damp.");
    expect(all[2]).toContain("Coral reefs host fish.");
    expect(all[2]).not.toContain("Menu Home");
    expect(all[3]).toContain("Glaciers carve valleys.");
    expect(all[3]).toContain("冰川雕刻山谷");
  });

  it("ends a broken PDF failed with a reason, and the stack stays healthy", async () => {
    const id = await upload("broken.pdf", "application/pdf", "%PDF-1.7\n1 0 obj garbage");
    const doc = await settled(id);
    expect(doc.status).toBe("failed");
    expect(doc.error).toMatch(/PDF/);
    expect((await call("/health")).status).toBe(200);
  });
});

async function rowsAfter(id: string) {
  const doc = await settled(id);
  expect(doc.status, doc.error).toBe("ready");
  return rowsOf(id);
}
