import { describe, expect, it } from "vitest";
import {
  createDataset,
  createDocument,
  type DocumentSources,
  listRows,
  type ProjectContext,
  type RequestRow,
  type UserMetadata,
  updateRow,
  upsertRows,
  validateUploadFields,
  writeRowsOfDocument,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

/**
 * A dataset's declared `metadata_columns` types hold on every write that takes metadata
 * (E5, E8, E9's field, E11–E13): a value of another type is a 400 naming the row and key,
 * and nothing is written. Undeclared keys stay free-form.
 */
const database = useFreshDatabase();

const DECLARED = [
  { name: "year", type: "number" },
  { name: "lang", type: "string" },
  { name: "draft", type: "boolean" },
  { name: "tags", type: "string[]" },
] as const;

async function setup(name: string) {
  const { ctx } = await createTenant(database.db, name);
  const dataset = await createDataset(
    ctx,
    { name, metadata_columns: DECLARED.map((c) => ({ ...c })) },
    { embeddingModel: "local/hash" },
  );
  const seeded = await upsertRows(ctx, dataset.id, {
    document_id: "doc",
    rows: [
      { data: { text: "first" }, metadata: { year: 2020, lang: "en", draft: false, tags: ["a"] } },
      { data: { text: "second" }, metadata: { year: 2021, note: "free" } },
    ],
  });
  return { ctx, datasetId: dataset.id, rowId: seeded.rows[0]!.id };
}

/** Every stored record of the dataset, in every table that has a `dataset_id`. */
async function stored(datasetId: string): Promise<Record<string, string>> {
  // A dataset's graph partition is read through its parent, `indexed_vectors`.
  const tables = await database.fresh.sql<{ table_name: string }>(
    `SELECT c.relname AS table_name FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
       AND NOT c.relispartition AND a.attname = 'dataset_id' AND NOT a.attisdropped
     ORDER BY c.relname`,
  );
  const out: Record<string, string> = {};
  for (const { table_name: table } of tables) {
    const [row] = await database.fresh.sql<{ print: string }>(
      `SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS print
       FROM "${table}" t WHERE t.dataset_id = $1`,
      [datasetId],
    );
    out[table] = row!.print;
  }
  return out;
}

/** The write is refused with exactly this message and leaves the dataset as it was. */
async function expectRefused(
  ctx: ProjectContext,
  datasetId: string,
  write: () => Promise<unknown>,
  message: string,
) {
  const before = await stored(datasetId);
  const rowsBefore = await listRows(ctx, datasetId, { offset: 0, pageSize: 1000 });
  const error = await write().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: "bad_request", message });
  expect(await stored(datasetId)).toEqual(before);
  expect(await listRows(ctx, datasetId, { offset: 0, pageSize: 1000 })).toEqual(rowsBefore);
}

const noSources: DocumentSources = {
  fetchUrl: () => Promise.reject(new Error("no fetch expected")),
  files: {
    put: () => Promise.reject(new Error("no file expected")),
    delete: () => Promise.reject(new Error("no file expected")),
    deletePrefix: () => Promise.reject(new Error("no file expected")),
  },
  enqueue: () => Promise.reject(new Error("no message expected")),
};

describe("declared metadata types on row writes", () => {
  it("E11 refuses a wrong type naming the row and key, on a new and on an existing document", async () => {
    const { ctx, datasetId } = await setup("e11");
    const rows: RequestRow[] = [
      { data: { text: "ok" }, metadata: { year: 2024 } },
      { data: { text: "ok" } },
      { data: { text: "ok" }, metadata: { lang: "de" } },
      { data: { text: "bad" }, metadata: { year: "2024" } },
    ];
    await expectRefused(
      ctx,
      datasetId,
      () => upsertRows(ctx, datasetId, { rows }),
      "rows[3].metadata.year: expected number",
    );
    await expectRefused(
      ctx,
      datasetId,
      () => upsertRows(ctx, datasetId, { document_id: "doc", rows }),
      "rows[3].metadata.year: expected number",
    );
    await expectRefused(
      ctx,
      datasetId,
      () => upsertRows(ctx, datasetId, { document_id: "new", rows }),
      "rows[3].metadata.year: expected number",
    );
  });

  it("E11 checks each declared type and leaves undeclared keys free-form", async () => {
    const { ctx, datasetId } = await setup("e11-types");
    const cases: [Record<string, unknown>, string][] = [
      [{ lang: 5 }, "rows[0].metadata.lang: expected string"],
      [{ draft: "true" }, "rows[0].metadata.draft: expected boolean"],
      [{ draft: 1 }, "rows[0].metadata.draft: expected boolean"],
      [{ tags: "a" }, "rows[0].metadata.tags: expected string[]"],
      [{ tags: ["a", 1] }, "rows[0].metadata.tags: expected string[]"],
      [{ year: ["2024"] }, "rows[0].metadata.year: expected number"],
      [{ year: { $gte: 1 } }, "rows[0].metadata.year: expected number"],
      [
        { year: null },
        "rows[0].metadata.year: expected number, not null (leave the key out when there is no value)",
      ],
    ];
    for (const [metadata, message] of cases) {
      await expectRefused(
        ctx,
        datasetId,
        // the dataset's rule on its own (the schema would refuse `null` before it)
        () =>
          upsertRows(ctx, datasetId, {
            rows: [{ data: { text: "x" }, metadata: metadata as UserMetadata }],
          }),
        message,
      );
    }
    const written = await upsertRows(ctx, datasetId, {
      rows: [
        {
          data: { text: "typed" },
          metadata: { year: 2024, lang: "en", draft: true, tags: [], note: "2024", other: 1 },
        },
        { data: { text: "partial" }, metadata: { year: 1999.5 } },
      ],
    });
    expect(written.rows[0]!.metadata).toMatchObject({
      year: 2024,
      lang: "en",
      draft: true,
      tags: [],
      note: "2024",
      other: 1,
    });
    expect(written.rows[1]!.metadata).toMatchObject({ year: 1999.5 });
  });

  it("E12 and E13 refuse a wrong type and keep the document's rows", async () => {
    const { ctx, datasetId } = await setup("e12-e13");
    const rows = [{ data: { text: "ok" } }, { data: { text: "bad" }, metadata: { tags: "a" } }];
    for (const mode of ["replace", "append"] as const) {
      await expectRefused(
        ctx,
        datasetId,
        () => writeRowsOfDocument(ctx, datasetId, "doc", { rows }, mode),
        "rows[1].metadata.tags: expected string[]",
      );
    }
    const appended = await writeRowsOfDocument(
      ctx,
      datasetId,
      "doc",
      { rows: [{ data: { text: "ok" }, metadata: { tags: ["b"], draft: true } }] },
      "append",
    );
    expect(appended.rows[0]!.metadata).toMatchObject({ tags: ["b"], draft: true });
  });

  it("E8 refuses a wrong type in the metadata patch and leaves the row as it was", async () => {
    const { ctx, datasetId, rowId } = await setup("e8");
    await expectRefused(
      ctx,
      datasetId,
      () =>
        updateRow(ctx, datasetId, String(rowId), {
          data: { text: "changed" },
          metadata: { note: "free", year: "2024" },
        }),
      "metadata.year: expected number",
    );
    await expectRefused(
      ctx,
      datasetId,
      () => updateRow(ctx, datasetId, String(rowId), { metadata: { draft: "no" } }),
      "metadata.draft: expected boolean",
    );
    const updated = await updateRow(ctx, datasetId, String(rowId), {
      metadata: { year: 2025, note: 7 },
    });
    expect(updated.metadata).toMatchObject({ year: 2025, lang: "en", note: 7 });
  });

  it("E5 refuses a wrong type in the document metadata before anything is stored", async () => {
    const { ctx, datasetId } = await setup("e5");
    await expectRefused(
      ctx,
      datasetId,
      () =>
        createDocument(
          ctx,
          datasetId,
          { id: "typed", content: "Some text.", metadata: { year: "2024" } },
          noSources,
        ),
      "metadata.year: expected number",
    );
    const created = await createDocument(
      ctx,
      datasetId,
      { id: "typed", content: "Some text.", metadata: { year: 2024, source: "x" } },
      noSources,
    );
    expect(created).toMatchObject({ status: "ready", metadata: { year: 2024, source: "x" } });
  });

  it("E9 refuses a wrong type in the metadata field, whether the field comes before or after the file", () => {
    const dataset = { kind: "standard", metadataColumns: DECLARED } as const;
    const metadata = '{"source":"handbook","year":"2024"}';
    for (const complete of [false, true]) {
      expect(() => validateUploadFields({ metadata }, dataset, { complete })).toThrow(
        expect.objectContaining({ code: "bad_request", message: "metadata.year: expected number" }),
      );
    }
    expect(() => validateUploadFields({ metadata: '{"year":null}' }, dataset)).toThrow(
      "metadata.year: expected number, not null (leave the key out when there is no value)",
    );
    expect(() => validateUploadFields({ metadata: '{"note":null}' }, dataset)).toThrow(
      "metadata.note: must be a string, a number, a boolean or an array of strings, not null (leave the key out when there is no value)",
    );
    expect(
      validateUploadFields({ metadata: '{"source":"handbook","year":2024}' }, dataset).metadata,
    ).toEqual({ source: "handbook", year: 2024 });
  });
});
