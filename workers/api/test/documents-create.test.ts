import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectEnvelope } from "./support/client.ts";
import { postDataset } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

let tenant: Tenant;
let datasetId: string;
let server: Server;
let received = 0;
let port: number;
beforeAll(async () => {
  tenant = await createTenant("create-document");
  const ds = await postDataset(tenant.key, { name: "docs", kind: "hybrid" });
  datasetId = ds.body.id;
  server = createServer((req, res) => {
    received++;
    req.resume();
    res.writeHead(200, { "content-type": "text/plain" }).end("internal secret");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (body: unknown) =>
  call(`/api/datasets/${datasetId}/documents`, { method: "POST", body, token: tenant.key });

describe("E5 create document end to end", () => {
  it("stores inline content ready and searchable rows with the document metadata", async () => {
    const content = Array.from({ length: 40 }, (_, i) => `Fact ${i} about glaciers.`).join(" ");
    const reply = await post({
      id: "glaciers",
      filename: "glaciers.txt",
      content,
      chunk_size: 300,
      chunk_overlap: 30,
      metadata: { topic: "ice", year: 2024 },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: "glaciers",
      dataset_id: datasetId,
      filename: "glaciers.txt",
      status: "ready",
      error: null,
    });
    const rows = await call(
      `/api/datasets/${datasetId}/rows?filter=${encodeURIComponent('{"documentId":"glaciers"}')}`,
      { token: tenant.key },
    );
    expect(rows.body.length).toBe(reply.body.row_count);
    expect(rows.body.length).toBeGreaterThan(2);
    for (const row of rows.body) {
      expect(row.data.text.length).toBeLessThanOrEqual(300);
      expect(row.metadata).toMatchObject({ topic: "ice", year: 2024, documentId: "glaciers" });
    }
  });

  it("refuses a duplicate id (409), bad chunking and bad metadata (400), storing nothing", async () => {
    expect((await post({ id: "dup", content: "first" })).status).toBe(200);
    expectEnvelope(await post({ id: "dup", content: "second" }), 409, "conflict");
    const bad = [
      [{ id: "c1", content: "x", chunk_size: 2001 }, /chunk_size/],
      [{ id: "c2", content: "x", chunk_size: 100, chunk_overlap: 100 }, /chunk_overlap/],
      [{ id: "c3", content: "x", metadata: { nested: { a: 1 } } }, /metadata\.nested/],
      [{ content: "no id" }, /id/],
      [{ id: "c4", parse_url: true }, /url/],
      [{ id: "c5", content: "x", surprise: 1 }, /surprise/],
    ] as const;
    for (const [body, message] of bad) {
      const error = expectEnvelope(await post(body), 400, "bad_request");
      expect(error.message).toMatch(message);
    }
    const listed = await call(`/api/datasets/${datasetId}/documents`, { token: tenant.key });
    const ids = listed.body.map((d: { id: string }) => d.id);
    expect(ids).toContain("dup");
    for (const id of ["c1", "c2", "c3", "c4", "c5"]) expect(ids).not.toContain(id);
  });

  it("refuses to fetch loopback and private addresses: the server receives nothing", async () => {
    const targets = [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://127.1:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://2130706433:${port}/`,
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.1/",
      "file:///etc/passwd",
    ];
    for (const [i, url] of targets.entries()) {
      const reply = await post({ id: `ssrf-${i}`, url, parse_url: true });
      const error = expectEnvelope(reply, 400, "bad_request");
      expect(error.message).toMatch(/^url/);
    }
    expect(received).toBe(0);
  });
});
