import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPdf } from "../../../packages/core/test/parsing/support/pdf-builder.ts";
import { type PrivateStackApi, privateStackTenant } from "./support/stack-client.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

/**
 * E5 `parse_url` decides a reply's type by its bytes, as uploads do (issue 15 item 3). The
 * shared e2e stack refuses loopback addresses (SSRF), so this file runs a stack of its own
 * with ALLOW_PRIVATE_URLS=true and serves the replies from a loopback server.
 */

let fx: TestStack;
let server: Server;
let source: string;
let base: string;
let key: string;
let api: PrivateStackApi;
let datasetId: string;

const pdf = buildPdf({
  pages: [
    { runs: [{ text: "The first page is about basalt." }] },
    { runs: [{ text: "The second page is about granite." }] },
  ],
});
const junk = new Uint8Array(30_000);
let seed = 17;
for (let i = 0; i < junk.length; i++) {
  seed = (seed * 1103515245 + 12345) >>> 0;
  junk[i] = seed >>> 24;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    // both mislabelled as text, as a misconfigured server does
    const body = req.url === "/manual.txt" ? pdf : req.url === "/junk.txt" ? junk : null;
    if (!body) return void res.writeHead(404).end("missing");
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(Buffer.from(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  source = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  fx = await startTestStack({ label: "parse-url", vars: { ALLOW_PRIVATE_URLS: "true" } });
  base = fx.stack.baseUrl;
  ({ key, api } = await privateStackTenant(fx, "parse-url"));
  datasetId = (await api("POST", "/api/datasets", { name: "fetched" })).body.id;
}, 180_000);

afterAll(async () => {
  await fx?.stop();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

describe("E5 parse_url of mislabelled replies", () => {
  it("parses a PDF served as text/plain as a PDF: rows with page and chunk, the file downloadable", async () => {
    const created = await api("POST", `/api/datasets/${datasetId}/documents`, {
      id: "manual",
      url: `${source}/manual.txt`,
      parse_url: true,
      chunk_size: 40,
      chunk_overlap: 0,
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ status: "queued", url: `${source}/manual.txt` });
    let doc = created.body;
    for (const deadline = Date.now() + 60_000; doc.status !== "ready"; ) {
      expect(doc.status, doc.error).not.toBe("failed");
      if (Date.now() > deadline) throw new Error(`still ${doc.status}`);
      await new Promise((r) => setTimeout(r, 100));
      doc = (await api("GET", `/api/datasets/${datasetId}/documents/manual`)).body;
    }
    const rows = (await api("GET", `/api/datasets/${datasetId}/rows?page_size=100`)).body as {
      data: { text: string };
      metadata: Record<string, unknown>;
    }[];
    expect(rows.map((r) => [r.data.text, r.metadata.page, r.metadata.chunk])).toEqual([
      ["The first page is about basalt.", 1, 0],
      ["The second page is about granite.", 2, 1],
    ]);

    const file = await fetch(`${base}/api/datasets/${datasetId}/documents/manual/file`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="manual.txt"');
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true);
  });

  it("refuses binary data served as text/plain with 415, keeping no document", async () => {
    const refused = await api("POST", `/api/datasets/${datasetId}/documents`, {
      id: "junk",
      url: `${source}/junk.txt`,
      parse_url: true,
    });
    expect(refused.status, refused.text).toBe(415);
    expect(refused.body.error).toMatchObject({
      code: "unsupported_media_type",
      message: expect.stringMatching(/binary/),
    });
    expect((await api("GET", `/api/datasets/${datasetId}/documents/junk`)).status).toBe(404);
  });
});
