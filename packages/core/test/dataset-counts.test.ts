import { documents } from "@quarry/db";
import { describe, expect, it } from "vitest";
import {
  createDataset,
  deleteRow,
  getDataset,
  listApiKeys,
  listDatasets,
  listProjects,
  NotFoundError,
  revokeApiKey,
  upsertRows,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { createTenant } from "./support/tenant.ts";

/** Issue 16 item 7: datasets carry their row and document counts; the admin listings. */

const database = useFreshDatabase();

const rows = (n: number, text: string) =>
  Array.from({ length: n }, (_, i) => ({ data: { text: `${text} ${i}` } }));

describe("dataset counts", () => {
  it("counts rows and documents on create, get and list, as writes come and go", async () => {
    const { ctx } = await createTenant(database.db, "counts");
    const created = await createDataset(ctx, { name: "c" }, { embeddingModel: "local/hash" });
    expect(created).toMatchObject({ row_count: 0, document_count: 0 });
    const other = await createDataset(ctx, { name: "other" }, { embeddingModel: "local/hash" });

    const first = await upsertRows(ctx, created.id, { document_id: "a", rows: rows(3, "alpha") });
    await upsertRows(ctx, created.id, { document_id: "b", rows: rows(2, "beta") });
    // a row without keyword terms still counts, and a document without rows (queued) too
    await upsertRows(ctx, created.id, { document_id: "c", rows: [{ data: { text: "" } }] });
    await database.db
      .insert(documents)
      .values({ projectId: ctx.projectId, datasetId: created.id, id: "queued", status: "queued" });
    await upsertRows(ctx, other.id, { document_id: "x", rows: rows(4, "other") });

    expect(await getDataset(ctx, created.id)).toMatchObject({ row_count: 6, document_count: 4 });
    await deleteRow(ctx, created.id, String(first.rows[0]!.id));
    // E11 on an existing document replaces its rows: a 2, b 5, c 1
    await upsertRows(ctx, created.id, { document_id: "b", rows: rows(5, "beta again") });
    expect(await getDataset(ctx, created.id)).toMatchObject({ row_count: 8, document_count: 4 });

    const listed = await listDatasets(ctx, { offset: 0, pageSize: 10 });
    expect(listed.map((d) => [d.name, d.row_count, d.document_count])).toEqual([
      ["c", 8, 4],
      ["other", 4, 1],
    ]);
  });
});

describe("admin listings", () => {
  it("lists projects oldest first, and a project's keys without the key or its hash", async () => {
    const { ctx, key } = await createTenant(database.db, "admin-list");
    const projects = await listProjects(database.db, { offset: 0, page_size: 1000 });
    expect(projects.at(-1)).toEqual({
      id: ctx.projectId,
      name: "admin-list",
      created_at: expect.any(String),
    });
    expect(await listProjects(database.db, { offset: projects.length - 1, page_size: 1 })).toEqual([
      projects.at(-1),
    ]);

    await revokeApiKey(database.db, key.id);
    const keys = await listApiKeys(database.db, ctx.projectId, { offset: 0, page_size: 10 });
    expect(keys).toEqual([
      {
        id: key.id,
        name: "admin-list-key",
        email: null,
        prefix: key.key.slice(0, 10),
        project_id: ctx.projectId,
        created_at: key.created_at,
        revoked_at: expect.stringMatching(/Z$/),
      },
    ]);
    expect(JSON.stringify(keys)).not.toContain(key.key);
    await expect(
      listApiKeys(database.db, "proj_missing", { offset: 0, page_size: 10 }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
