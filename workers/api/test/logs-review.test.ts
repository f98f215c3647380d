import { beforeAll, describe, expect, it } from "vitest";
import { admin, baseUrl, call, expectEnvelope, getWithBody } from "./support/client.ts";
import { withSql } from "./support/database-fingerprint.ts";
import { postDataset, postEndpoint, upsertRows } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";

/**
 * Issue 16 item 7 over HTTP: E7's filters (query string and JSON body), the streamed log
 * export, datasets' counts and the admin listings.
 */

let tenant: Tenant;
let endpointId: string;
const ids: string[] = [];

beforeAll(async () => {
  tenant = await createTenant("logs-review");
  const endpoint = await postEndpoint(tenant.key, {
    name: "review",
    model: "local/echo",
    prompt: "{{q}}",
  });
  endpointId = endpoint.body.id;
  for (let n = 0; n < 4; n++) {
    const reply = await call(`/api/endpoints/${endpointId}/completions`, {
      method: "POST",
      token: tenant.key,
      body: { values: { q: `answer ${n}` }, prompt: [], ...(n % 2 ? { user: "bob" } : {}) },
    });
    ids.push(reply.body.choices[0].usage_id);
  }
  await call(`/endpoints/${endpointId}/logs`, {
    method: "PATCH",
    token: tenant.key,
    body: { logs: [{ usage_id: ids[1], positive_rating: false }] },
  });
  await call(`/endpoints/${endpointId}/logs/${ids[2]}/comments`, {
    method: "POST",
    token: tenant.key,
    body: { comment: "Check the source." },
  });
});

const listed = (reply: { body: { id: string }[] }) => reply.body.map((l) => ids.indexOf(l.id));

describe("E7 filters", () => {
  it("filter by the query string or by a JSON body", async () => {
    const logs = (query: string) =>
      call(`/endpoints/${endpointId}/logs?${query}`, { token: tenant.key });
    expect(listed(await logs("rating=negative"))).toEqual([1]);
    expect(listed(await logs("rating=unrated&user=bob"))).toEqual([3]);
    expect(listed(await logs("has_comments=true"))).toEqual([2]);
    expect(listed(await logs("has_comments=false&status=200&page_size=2"))).toEqual([3, 1]);
    expect(listed(await logs(`user=${tenant.keyId}&since=2000-01-01`))).toEqual([2, 0]);
    expect(listed(await logs("until=2000-01-01T00:00:00Z"))).toEqual([]);
    const body = await getWithBody(
      `/endpoints/${endpointId}/logs`,
      { rating: "unrated", has_comments: false, status: 200, page: 1 },
      tenant.key,
    );
    expect(listed(body)).toEqual([3, 0]);
    // The next page after a log, by the query string or the body; a filter applies after it.
    expect(listed(await logs(`after=${ids[3]}&page_size=2`))).toEqual([2, 1]);
    expect(listed(await logs(`after=${ids[2]}&user=bob`))).toEqual([1]);
    const next = await getWithBody(`/endpoints/${endpointId}/logs`, { after: ids[1] }, tenant.key);
    expect(listed(next)).toEqual([0]);
  });

  it.each([
    ["rating=good", "rating"],
    ["has_comments=yes", "has_comments"],
    ["since=last-week", "since"],
    ["until=2024-02-30", "until"],
    ["status=abc", "status"],
    ["status=700", "status"],
    ["user=", "user"],
    ["colour=red", "colour"],
    ["after=", "after"],
    ["after=no-such-log", "after"],
  ])("?%s is a 400 naming %s", async (query, name) => {
    const reply = await call(`/endpoints/${endpointId}/logs?${query}`, { token: tenant.key });
    expect(expectEnvelope(reply, 400, "bad_request").message.startsWith(`${name}: `)).toBe(true);
  });

  it("names a bad JSON body field too", async () => {
    for (const [body, name] of [
      [{ has_comments: "maybe" }, "has_comments"],
      [{ status: "x" }, "status"],
      [{ rating: ["positive"] }, "rating"],
    ] as const) {
      const reply = await getWithBody(`/endpoints/${endpointId}/logs`, body, tenant.key);
      expect(expectEnvelope(reply, 400, "bad_request").message.startsWith(`${name}: `)).toBe(true);
    }
  });
});

describe("log export", () => {
  it("streams a few thousand logs: the first bytes come before the whole body", async () => {
    const created = await postEndpoint(tenant.key, {
      name: "bulk export",
      model: "local/echo",
      prompt: "{{q}}",
    });
    const bulkId: string = created.body.id;
    const count = 3000;
    await withSql((sql) =>
      sql.query(
        `INSERT INTO logs (id, project_id, endpoint_id, deployment_id, user_id, model,
           service_model_name, prompt, completion, status, positive_rating, created_at)
         SELECT 'bulk-' || n, $1, $2, 1, 'u', 'echo', 'local/echo', to_jsonb('prompt ' || n),
           'answer ' || n || ', "quoted"', 200, CASE WHEN n % 3 = 0 THEN true END,
           now() - make_interval(secs => n)
         FROM generate_series(1, $3::int) AS n`,
        [tenant.projectId, bulkId, count],
      ),
    );
    const started = performance.now();
    const res = await fetch(`${baseUrl()}/endpoints/${bulkId}/logs/export?format=jsonl`, {
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(
      'attachment; filename="bulk export-logs.jsonl"',
    );
    expect(res.headers.get("content-length")).toBeNull();
    const reader = res.body!.getReader();
    const chunks: { at: number; bytes: number }[] = [];
    let text = "";
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push({ at: performance.now() - started, bytes: value.length });
      text += decoder.decode(value, { stream: true });
    }
    const total = performance.now() - started;
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(count);
    expect(JSON.parse(lines[0]!)).toMatchObject({ id: "bulk-1", rating: "unrated", comments: [] });
    expect(JSON.parse(lines[2]!)).toMatchObject({ id: "bulk-3", rating: "positive" });
    expect(JSON.parse(lines.at(-1)!).id).toBe(`bulk-${count}`);
    // six batches of 500 at least, the first one well before the last
    expect(chunks.length).toBeGreaterThanOrEqual(6);
    expect(chunks[0]!.bytes).toBeLessThan(text.length / 2);
    expect(chunks[0]!.at).toBeLessThan(total);
    console.log(
      `export of ${count} logs: first bytes after ${chunks[0]!.at.toFixed(0)} ms, all ${text.length} bytes after ${total.toFixed(0)} ms, ${chunks.length} chunks`,
    );

    const csv = await call(`/endpoints/${bulkId}/logs/export?format=csv&rating=positive`, {
      token: tenant.key,
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    const csvLines = csv.text.trimEnd().split("\r\n");
    expect(csvLines).toHaveLength(1 + count / 3);
    expect(csvLines[1]).toContain('"answer 3, ""quoted"""');
  });

  it("refuses a bad format or filter (400) and another project's key (401)", async () => {
    const bad = await call(`/endpoints/${endpointId}/logs/export?format=xml`, {
      token: tenant.key,
    });
    expect(expectEnvelope(bad, 400, "bad_request").message).toMatch(/^format: /);
    const filter = await call(`/endpoints/${endpointId}/logs/export?rating=meh`, {
      token: tenant.key,
    });
    expect(expectEnvelope(filter, 400, "bad_request").message).toMatch(/^rating: /);
    const other = await createTenant("logs-review-other");
    expectEnvelope(
      await call(`/endpoints/${endpointId}/logs/export`, { token: other.key }),
      401,
      "unauthorized",
    );
    const exported = await call(`/endpoints/${endpointId}/logs/export?has_comments=true`, {
      token: tenant.key,
    });
    const [record] = exported.text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(record).toMatchObject({ id: ids[2], comments: [{ comment: "Check the source." }] });
  });
});

describe("dataset counts", () => {
  it("every dataset reply carries row_count and document_count", async () => {
    const created = await postDataset(tenant.key, { name: "counted" });
    expect(created.body).toMatchObject({ row_count: 0, document_count: 0 });
    const id = created.body.id;
    for (const [doc, n] of [
      ["a", 3],
      ["b", 2],
    ] as const) {
      const written = await upsertRows(tenant.key, id, {
        document_id: doc,
        rows: Array.from({ length: n }, (_, i) => ({ data: { text: `row ${i}` } })),
      });
      expect(written.status).toBe(200);
    }
    const got = await call(`/api/datasets/${id}`, { token: tenant.key });
    expect(got.body).toMatchObject({ row_count: 5, document_count: 2 });
    const list = await call("/api/datasets", { token: tenant.key });
    expect(list.body.find((d: { id: string }) => d.id === id)).toMatchObject({
      row_count: 5,
      document_count: 2,
    });
  });
});

describe("admin listings", () => {
  it("lists projects (paged) and a project's keys, never a key or its hash", async () => {
    const first = await admin("/admin/projects?offset=0&page_size=1");
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(1);
    let found: unknown;
    for (let offset = 0; !found; offset += 1000) {
      const page = await admin(`/admin/projects?offset=${offset}&page_size=1000`);
      expect(page.status).toBe(200);
      if (page.body.length === 0) break;
      found = page.body.find((p: { id: string }) => p.id === tenant.projectId);
    }
    expect(found).toEqual({
      id: tenant.projectId,
      name: "logs-review",
      created_at: expect.any(String),
    });

    const spare = await admin(`/admin/projects/${tenant.projectId}/keys`, {
      method: "POST",
      body: { name: "spare" },
    });
    await admin(`/admin/keys/${spare.body.id}`, { method: "DELETE" });
    const keys = await admin(`/admin/projects/${tenant.projectId}/keys`);
    expect(keys.status).toBe(200);
    expect(keys.body).toEqual([
      {
        id: tenant.keyId,
        name: "logs-review-key",
        email: "logs-review@example.com",
        prefix: tenant.key.slice(0, 10),
        project_id: tenant.projectId,
        created_at: expect.any(String),
        revoked_at: null,
      },
      expect.objectContaining({ id: spare.body.id, name: "spare", revoked_at: expect.any(String) }),
    ]);
    expect(keys.text).not.toContain(tenant.key);
    expect(keys.text).not.toContain(spare.body.key);
    expect(keys.text).not.toMatch(/hash/);
    const paged = await admin(`/admin/projects/${tenant.projectId}/keys?offset=1&page_size=1`);
    expect(paged.body.map((k: { id: string }) => k.id)).toEqual([spare.body.id]);

    expectEnvelope(await admin("/admin/projects/proj_missing/keys"), 404, "not_found");
    expectEnvelope(await admin("/admin/projects?page_size=0"), 400, "bad_request");
    expectEnvelope(await call("/admin/projects", { token: tenant.key }), 401, "unauthorized");
  });
});
