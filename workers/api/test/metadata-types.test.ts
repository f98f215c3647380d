import { beforeAll, describe, expect, it } from "vitest";
import { call, expectEnvelope, type Reply } from "./support/client.ts";
import { changedTables, fingerprint } from "./support/database-fingerprint.ts";
import { postDataset } from "./support/seed.ts";
import { createTenant, type Tenant } from "./support/tenant.ts";
import { postForm } from "./support/upload.ts";

/**
 * Issue 15.2: a dataset's declared `metadata_columns` types hold on every write that takes
 * metadata — E5, E8, E9's `metadata` field, E11, E12, E13 — through workerd: a value of
 * another type is a 400 naming the row and key, and the project's stored data is
 * byte-for-byte the same afterwards. Undeclared keys stay free-form.
 */

let tenant: Tenant;
let datasetId: string;
let rowId: number;

const api = (path: string) => `/api/datasets/${datasetId}${path}`;
const send = (method: string, path: string, body?: unknown) =>
  call(api(path), { method, token: tenant.key, body });

beforeAll(async () => {
  tenant = await createTenant("metadata-types");
  const dataset = await postDataset(tenant.key, {
    name: "typed",
    metadata_columns: [
      { name: "year", type: "number" },
      { name: "lang", type: "string" },
      { name: "draft", type: "boolean" },
      { name: "tags", type: "string[]" },
    ],
  });
  expect(dataset.status).toBe(201);
  datasetId = dataset.body.id;
  const seeded = await send("POST", "/rows/upsert", {
    document_id: "doc",
    rows: [
      { data: { text: "comets" }, metadata: { year: 2021, lang: "en", tags: ["a"] } },
      { data: { text: "planets" }, metadata: { year: 2023, draft: true, note: "free" } },
    ],
  });
  expect(seeded.status).toBe(200);
  rowId = seeded.body.rows[0].id;
  // the seeded rows into the vector graph once; the refusals below write nothing to index
  await settledFingerprint();
});

/**
 * The project's stored data, once the rows written so far are in the vector graph (the
 * ingest worker moves them there in the background, which changes stored data).
 */
async function settledFingerprint() {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const detail = await send("GET", "");
    if (detail.body?.vector_index?.pending_rows === 0) break;
    if (Date.now() > deadline) throw new Error(`vector index never settled: ${detail.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return fingerprint([tenant.projectId]);
}

/** The request is a 400 `bad_request` with exactly `message`, and nothing stored changed. */
async function expectRefused(request: () => Promise<Reply>, message: string) {
  const before = await settledFingerprint();
  const error = expectEnvelope(await request(), 400, "bad_request");
  expect(error.message).toBe(message);
  const after = await fingerprint([tenant.projectId]);
  expect(changedTables(before, after)).toEqual([]);
  expect(after).toEqual(before);
}

async function upload(parts: [string, string | { content: string; name: string }][]) {
  const form = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, new Blob([value.content], { type: "text/plain" }), value.name);
  }
  return postForm(api("/upload"), form, tenant.key);
}

const file = { content: "Glaciers carve valleys.", name: "notes.txt" };

describe("declared metadata types on writes", () => {
  it("E11 refuses a string under a number column, naming the row and key, and stores nothing", async () => {
    await expectRefused(
      () =>
        send("POST", "/rows/upsert", {
          rows: [{ data: { text: "x" }, metadata: { year: "2024" } }],
        }),
      "rows[0].metadata.year: expected number",
    );
    const rows = [
      { data: { text: "one" }, metadata: { year: 2024 } },
      { data: { text: "two" } },
      { data: { text: "three" }, metadata: { lang: "de", note: 5 } },
      { data: { text: "four" }, metadata: { year: "2024" } },
    ];
    for (const document_id of ["doc", "fresh", undefined]) {
      await expectRefused(
        () => send("POST", "/rows/upsert", { ...(document_id ? { document_id } : {}), rows }),
        "rows[3].metadata.year: expected number",
      );
    }
    expectEnvelope(await send("GET", "/documents/fresh"), 404, "not_found");
  });

  it("E11 checks every declared type and refuses null with a hint", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ lang: 7 }, "rows[0].metadata.lang: expected string"],
      [{ draft: "true" }, "rows[0].metadata.draft: expected boolean"],
      [{ tags: "a" }, "rows[0].metadata.tags: expected string[]"],
      [{ year: true }, "rows[0].metadata.year: expected number"],
      [
        { year: null },
        "rows[0].metadata.year: must be a string, a number, a boolean or an array of strings, not null (leave the key out when there is no value)",
      ],
    ];
    for (const [metadata, message] of cases) {
      await expectRefused(
        () => send("POST", "/rows/upsert", { rows: [{ data: { text: "x" }, metadata }] }),
        message,
      );
    }
  });

  it("E12 and E13 refuse a wrong type and keep the document's rows", async () => {
    const rows = [{ data: { text: "ok" } }, { data: { text: "bad" }, metadata: { draft: "no" } }];
    await expectRefused(
      () => send("PATCH", "/documents/doc", { rows }),
      "rows[1].metadata.draft: expected boolean",
    );
    await expectRefused(
      () => send("POST", "/documents/doc/rows", { rows }),
      "rows[1].metadata.draft: expected boolean",
    );
  });

  it("E8 refuses a wrong type in the metadata patch and leaves the row as it was", async () => {
    await expectRefused(
      () =>
        send("PATCH", `/rows/${rowId}`, {
          data: { text: "changed" },
          metadata: { note: "free", year: "2024" },
        }),
      "metadata.year: expected number",
    );
    await expectRefused(
      () => send("PATCH", `/rows/${rowId}`, { metadata: { tags: "b" } }),
      "metadata.tags: expected string[]",
    );
  });

  it("E5 refuses a wrong type in the document metadata and reserves no id", async () => {
    await expectRefused(
      () =>
        send("POST", "/documents", {
          id: "inline",
          content: "Some text.",
          metadata: { year: "2024", source: "x" },
        }),
      "metadata.year: expected number",
    );
  });

  it("E9 refuses a wrong type in the metadata field, before or after the file, storing nothing", async () => {
    const metadata = '{"team":"search","year":"2024"}';
    await expectRefused(
      () =>
        upload([
          ["document_id", "upload"],
          ["metadata", metadata],
          ["file", file],
        ]),
      "metadata.year: expected number",
    );
    await expectRefused(
      () =>
        upload([
          ["document_id", "upload"],
          ["file", file],
          ["metadata", metadata],
        ]),
      "metadata.year: expected number",
    );
    await expectRefused(
      () =>
        upload([
          ["metadata", '{"year":null}'],
          ["file", file],
        ]),
      "metadata.year: expected number, not null (leave the key out when there is no value)",
    );
  });

  // Last, so that the refusals above compare fingerprints without waiting for the indexer.
  it("accepts the declared types on every write and leaves undeclared keys free-form", async () => {
    const written = await send("POST", "/rows/upsert", {
      document_id: "free",
      rows: [{ data: { text: "typed" }, metadata: { year: 2020, note: "2024", other: 1 } }],
    });
    expect(written.status).toBe(200);
    expect(written.body.rows[0].metadata).toMatchObject({ year: 2020, note: "2024", other: 1 });
    const appended = await send("POST", "/documents/free/rows", {
      rows: [{ data: { text: "more" }, metadata: { draft: false, tags: [], lang: "fr" } }],
    });
    expect(appended.status).toBe(200);
    const patched = await send("PATCH", `/rows/${rowId}`, { metadata: { year: 2022, note: 3 } });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata).toMatchObject({ year: 2022, lang: "en", note: 3 });
    // every stored `year` is a number, so the range filter sees every row that has one
    const filter = encodeURIComponent(JSON.stringify({ year: { $gte: 2020 } }));
    const listed = await send("GET", `/rows?filter=${filter}`);
    expect(listed.status).toBe(200);
    expect((listed.body as { metadata: { year: number } }[]).map((r) => r.metadata.year)).toEqual([
      2022, 2023, 2020,
    ]);

    const created = await send("POST", "/documents", {
      id: "inline",
      content: "Some text.",
      metadata: { year: 2024, source: "x" },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ status: "ready", metadata: { year: 2024 } });

    // the refused uploads never took the id
    const accepted = await upload([
      ["document_id", "upload"],
      ["metadata", '{"team":"search","year":2024}'],
      ["file", file],
    ]);
    expect(accepted.status).toBe(200);
    const doc = await send("GET", "/documents/upload");
    expect(doc.body).toMatchObject({ id: "upload", metadata: { team: "search", year: 2024 } });
  });
});
