import { beforeAll, describe, expect, it } from "vitest";
import { call, expectEnvelope, getWithBody, type Reply } from "./support/client.ts";
import { pollUntil } from "./support/poll.ts";
import { ingestWorkerState } from "./support/queue-work.ts";
import { upsertRows } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

let tenant: Tenant;
let other: Tenant;
beforeAll(async () => {
  tenant = await createTenant("rows");
  other = await createTenant("rows-other");
});

const as = (t: Tenant) => ({ token: t.key });

async function newDataset(t: Tenant = tenant, body: Record<string, unknown> = {}) {
  const reply = await call("/api/datasets", {
    method: "POST",
    body: { name: "rows", kind: "hybrid", ...body },
    ...as(t),
  });
  expect(reply.status).toBe(201);
  return reply.body.id as string;
}

const rowsOf = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    data: { text: `${tag} row ${i} about the northern lights` },
    metadata: { i, tag, tags: [tag, i % 2 ? "odd" : "even"] },
  }));

async function list(datasetId: string, query = "") {
  const reply = await call(`/api/datasets/${datasetId}/rows${query}`, as(tenant));
  expect(reply.status).toBe(200);
  return reply.body as any[];
}

/** A new dataset whose document "d" holds rows 0..9 (`rowsOf(10, "x")`), in that order. */
async function datasetOfTenRows() {
  const ds = await newDataset();
  const written = await upsertRows(tenant.key, ds, { document_id: "d", rows: rowsOf(10, "x") });
  expect(written.status).toBe(200);
  return ds;
}

describe("rows end to end", () => {
  it("E11 creates, E13 adds, E12 replaces, E6 lists in insertion order", async () => {
    const ds = await newDataset();
    const created = await call(`/api/datasets/${ds}/rows/upsert`, {
      method: "POST",
      body: { document_id: "doc-a", rows: rowsOf(3, "a") },
      ...as(tenant),
    });
    expect(created.status).toBe(200);
    expect(created.body.document_id).toBe("doc-a");
    const [first] = created.body.rows;
    expect(first).toEqual({
      id: first.id,
      dataset_id: ds,
      data: { text: "a row 0 about the northern lights" },
      embedding_vector_ids: { text: `${first.id}:text` },
      metadata: { i: 0, tag: "a", tags: ["a", "even"], rowId: first.id, documentId: "doc-a" },
      document_id: "doc-a",
      image_paths: null,
    });

    const generated = await call(`/api/datasets/${ds}/rows/upsert`, {
      method: "POST",
      body: { rows: rowsOf(2, "b") },
      ...as(tenant),
    });
    expect(generated.body.document_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);

    const added = await call(`/api/datasets/${ds}/documents/doc-a/rows`, {
      method: "POST",
      body: { rows: rowsOf(1, "c") },
      ...as(tenant),
    });
    expect(added.status).toBe(200);
    expect(added.body.rows).toHaveLength(1);

    const all = await list(ds);
    expect(all.map((r) => r.data.text.split(" ").slice(0, 3).join(" "))).toEqual([
      "a row 0",
      "a row 1",
      "a row 2",
      "b row 0",
      "b row 1",
      "c row 0",
    ]);
    expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((x, y) => x - y));

    const replaced = await call(`/api/datasets/${ds}/documents/doc-a`, {
      method: "PATCH",
      body: { rows: rowsOf(1, "d") },
      ...as(tenant),
    });
    expect(replaced.status).toBe(200);
    const after = await list(ds);
    expect(after.map((r) => r.metadata.tag)).toEqual(["b", "b", "d"]);

    const doc = await call(`/api/datasets/${ds}/documents/doc-a`, as(tenant));
    expect(doc.body).toMatchObject({ id: "doc-a", status: "ready", row_count: 1 });
  });

  it("moves written rows into the vector graph once, a few seconds after a burst of writes", async () => {
    const ds = await newDataset();
    for (const doc of ["burst-1", "burst-2", "burst-3"]) {
      const written = await call(`/api/datasets/${ds}/rows/upsert`, {
        method: "POST",
        body: { document_id: doc, rows: rowsOf(4, doc) },
        ...as(tenant),
      });
      expect(written.status).toBe(200);
    }
    const pending = (reply: Reply) => reply.body.vector_index?.pending_rows as number;
    // The one message the burst sent waits out its window, so all 12 rows are still pending.
    expect(pending(await call(`/api/datasets/${ds}`, as(tenant)))).toBe(12);
    // The message runs after whatever the stack's one queue consumer holds for other tests.
    await pollUntil(
      `/api/datasets/${ds}`,
      tenant.key,
      (reply) => reply.status === 200 && pending(reply) === 0,
      (reply) => `rows still pending: ${pending(reply)}`,
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await ingestWorkerState(ds)}`);
    });
  }, 90_000);

  it("E6 pages and filters from the query string and from a GET body", async () => {
    const ds = await datasetOfTenRows();
    const page = await list(ds, "?offset=2&page_size=3");
    expect(page.map((r) => r.metadata.i)).toEqual([2, 3, 4]);
    const filter = encodeURIComponent(JSON.stringify({ i: { $gte: 7 } }));
    expect((await list(ds, `?filter=${filter}`)).map((r) => r.metadata.i)).toEqual([7, 8, 9]);
    const viaBody = await getWithBody(
      `/api/datasets/${ds}/rows`,
      { offset: 1, page_size: 2, filter: { tags: "odd" } },
      tenant.key,
    );
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.map((r: any) => r.metadata.i)).toEqual([3, 5]);
  });

  it("E6 pages after a row id: the next page from the last row, however the rows before it change", async () => {
    const ds = await datasetOfTenRows();
    const first = await list(ds, "?page_size=4");
    expect(first.map((r) => r.metadata.i)).toEqual([0, 1, 2, 3]);
    // A row of the first page goes: an offset of 4 would now skip row 4, `after` does not.
    const deleted = await call(`/api/datasets/${ds}/rows/${first[1].id}`, {
      method: "DELETE",
      ...as(tenant),
    });
    expect(deleted.status).toBe(204);
    expect((await list(ds, "?offset=4&page_size=4")).map((r) => r.metadata.i)).toEqual([
      5, 6, 7, 8,
    ]);
    const next = await list(ds, `?after=${first.at(-1).id}&page_size=4`);
    expect(next.map((r) => r.metadata.i)).toEqual([4, 5, 6, 7]);
    // With a filter and an offset, from the JSON body; past the last row, an empty page.
    const viaBody = await getWithBody(
      `/api/datasets/${ds}/rows`,
      { after: next[0].id, offset: 1, page_size: 2, filter: { tags: "odd" } },
      tenant.key,
    );
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.map((r: any) => r.metadata.i)).toEqual([7, 9]);
    expect(await list(ds, `?after=${next.at(-1).id + 1000}`)).toEqual([]);
  });

  it("E8 updates, E14 deletes (204), and both 404 on unknown rows", async () => {
    const ds = await newDataset();
    const { body } = await call(`/api/datasets/${ds}/rows/upsert`, {
      method: "POST",
      body: { rows: rowsOf(2, "u") },
      ...as(tenant),
    });
    const id = body.rows[0].id;
    const updated = await call(`/api/datasets/${ds}/rows/${id}`, {
      method: "PATCH",
      body: { data: { text: "changed" }, metadata: { extra: true } },
      ...as(tenant),
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ text: "changed" });
    expect(updated.body.metadata).toMatchObject({ extra: true, i: 0, rowId: id });

    const deleted = await call(`/api/datasets/${ds}/rows/${id}`, {
      method: "DELETE",
      ...as(tenant),
    });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expectEnvelope(
      await call(`/api/datasets/${ds}/rows/${id}`, { method: "DELETE", ...as(tenant) }),
      404,
      "not_found",
    );
    expectEnvelope(
      await call(`/api/datasets/${ds}/rows/${id}`, {
        method: "PATCH",
        body: { data: { text: "x" } },
        ...as(tenant),
      }),
      404,
      "not_found",
    );
    expect((await list(ds)).map((r) => r.metadata.i)).toEqual([1]);
  });

  it("refuses bad input with a 4xx envelope naming the field and stores nothing", async () => {
    const ds = await newDataset();
    const cases: [string, string, unknown, number, string, RegExp][] = [
      [
        "POST",
        "/rows/upsert",
        { rows: [{ data: { text: 5 } }] },
        400,
        "bad_request",
        /rows\[0\]\.data\.text/,
      ],
      [
        "POST",
        "/rows/upsert",
        { rows: [{ data: { nope: "x" } }] },
        400,
        "bad_request",
        /rows\[0\]\.data\.nope/,
      ],
      [
        "POST",
        "/rows/upsert",
        { rows: [{ data: { text: "x" }, metadata: { a: { b: 1 } } }] },
        400,
        "bad_request",
        /rows\[0\]\.metadata\.a/,
      ],
      ["POST", "/rows/upsert", { rows: "x" }, 400, "bad_request", /rows/],
      ["POST", "/rows/upsert", {}, 400, "bad_request", /rows/],
      ["POST", "/documents/missing/rows", { rows: rowsOf(1, "m") }, 404, "not_found", /missing/],
      ["PATCH", "/documents/missing", { rows: rowsOf(1, "m") }, 404, "not_found", /missing/],
      ["PATCH", "/rows/abc", { data: { text: "x" } }, 400, "bad_request", /row_id/],
      ["PATCH", "/rows/1", {}, 400, "bad_request", /data|metadata/],
      ["DELETE", "/rows/-1", undefined, 400, "bad_request", /row_id/],
      ["GET", "/rows?page_size=5000", undefined, 400, "bad_request", /page_size/],
      ["GET", "/rows?offset=-1", undefined, 400, "bad_request", /offset/],
      ["GET", "/rows?after=-1", undefined, 400, "bad_request", /after/],
      ["GET", "/rows?after=abc", undefined, 400, "bad_request", /after/],
      ["GET", "/rows?after=1.5", undefined, 400, "bad_request", /after/],
      ["GET", "/rows?cursor=1", undefined, 400, "bad_request", /cursor/],
      ["GET", "/rows?filter=%7Bnope", undefined, 400, "bad_request", /filter/],
      [
        "GET",
        `/rows?filter=${encodeURIComponent('{"a":{"$regex":"x"}}')}`,
        undefined,
        400,
        "bad_request",
        /filter\.a\.\$regex/,
      ],
    ];
    for (const [method, path, body, status, code, message] of cases) {
      const reply = await call(`/api/datasets/${ds}${path}`, {
        method,
        ...(body === undefined ? {} : { body }),
        ...as(tenant),
      });
      const error = expectEnvelope(reply, status, code);
      expect(error.message, `${method} ${path}`).toMatch(message);
    }
    const badBody = await getWithBody(`/api/datasets/${ds}/rows`, "{nope", tenant.key);
    expectEnvelope(badBody, 400, "bad_request");
    expect(await list(ds)).toEqual([]);
    const docs = await call(`/api/datasets/${ds}/documents`, as(tenant));
    expect(docs.body).toEqual([]);
  });

  it("refuses an oversized body with 413", async () => {
    const ds = await newDataset();
    const huge = "x".repeat(17 * 1024 * 1024);
    const reply = await call(`/api/datasets/${ds}/rows/upsert`, {
      method: "POST",
      body: `{"rows":[{"data":{"text":"${huge}"}}]}`,
      headers: { "content-type": "application/json" },
      ...as(tenant),
    });
    expectEnvelope(reply, 413, "payload_too_large");
    expect(await list(ds)).toEqual([]);
  });

  it("keeps another project's key away from rows (401) and guessed ids (404)", async () => {
    const ds = await newDataset();
    const { body } = await call(`/api/datasets/${ds}/rows/upsert`, {
      method: "POST",
      body: { rows: rowsOf(1, "p") },
      ...as(tenant),
    });
    const rowId = body.rows[0].id;
    for (const [method, path] of [
      ["GET", "/rows"],
      ["DELETE", `/rows/${rowId}`],
    ] as const) {
      expectEnvelope(
        await call(`/api/datasets/${ds}${path}`, { method, ...as(other) }),
        401,
        "unauthorized",
      );
    }
    const theirs = await newDataset(other);
    expectEnvelope(
      await call(`/api/datasets/${theirs}/rows/${rowId}`, { method: "DELETE", ...as(other) }),
      404,
      "not_found",
    );
    expect(await list(ds)).toHaveLength(1);
  });
});
