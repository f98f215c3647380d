import { createDataset } from "@quarry/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FreshDatabase, freshDatabase } from "../../core/test/support/database.ts";
import { createTenant } from "../../core/test/support/tenant.ts";
import { createRawInserter, type RawInserter } from "../src/benches/rows/raw-insert.ts";

/**
 * `pnpm bench rows` explains one raw batch (`raw_insert_explained`): the statement's time and
 * each trigger's. It runs on a `pg` client, so only against a native server.
 */
const NATIVE = process.env.QUARRY_TEST_ENGINE === "native";

describe.skipIf(!NATIVE)("a raw batch, explained", () => {
  let fresh: FreshDatabase;
  let client: pg.Client;
  let raw: RawInserter;
  let datasetId: string;

  beforeAll(async () => {
    fresh = await freshDatabase("native");
    client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    const { ctx } = await createTenant(fresh.db, "explained");
    const dataset = await createDataset(ctx, { name: "raw" }, { embeddingModel: "local/hash" });
    datasetId = dataset.id;
    raw = createRawInserter(client, { projectId: ctx.projectId, datasetId });
  });

  afterAll(async () => {
    await client?.end();
    await fresh?.close();
  });

  it("times each trigger that keeps the search structures, and writes nothing", async () => {
    await raw.insertBatch("kept", 0, 10);
    const plan = await raw.explainBatch("explained", 10, 10);
    expect(plan.plan).toMatch(/^ModifyTable on rows/);
    expect(Object.keys(plan.triggers_ms ?? {})).toEqual(
      expect.arrayContaining([
        "rows_keyword_insert",
        "rows_filter_metadata_insert",
        "rows_vectors_insert",
      ]),
    );
    for (const ms of Object.values(plan.triggers_ms ?? {})) expect(ms).toBeGreaterThanOrEqual(0);
    const stored = await fresh.sql<{ document_id: string; rows: number }>(
      "SELECT document_id, count(*)::int AS rows FROM rows WHERE dataset_id = $1 GROUP BY 1",
      [datasetId],
    );
    expect(stored).toEqual([{ document_id: "kept", rows: 10 }]);
    // Nor did the triggers keep anything of the rolled-back rows.
    const backlog = await fresh.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM vector_backlog WHERE dataset_id = $1",
      [datasetId],
    );
    expect(backlog).toEqual([{ n: 10 }]);
  });
});
