import { createDataset, createProject, type ProjectContext, upsertRows } from "@quarry/core";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsumerHarness, startConsumerHarness } from "./support/consumer-harness.ts";

/**
 * The ingest worker's bulk graph build (core `search/vector-graph-builds.ts`) through the real
 * worker: its own session for the index statements, opened over the driver's WebSocket, next to
 * the batch's database. The threshold is lowered so a few hundred rows take the bulk path.
 */
let consumer: ConsumerHarness;
let project: ProjectContext;

beforeAll(async () => {
  consumer = await startConsumerHarness({ VECTOR_GRAPH_BULK_MIN_ROWS: "100" });
  project = { db: consumer.db, projectId: (await createProject(consumer.db, { name: "bulk" })).id };
});

afterAll(async () => {
  await consumer?.close();
});

async function graphOf(datasetId: string) {
  const result = (await consumer.db.execute(sql`
    SELECT (SELECT count(*)::int FROM indexed_vectors WHERE dataset_id = ${datasetId}) AS graph_rows,
           (SELECT count(*)::int FROM vector_backlog WHERE dataset_id = ${datasetId}) AS pending,
           (SELECT indisvalid FROM pg_index
            WHERE indexrelid = to_regclass(quote_ident(quarry_vector_index_name(${datasetId})))) AS valid,
           to_regclass(quote_ident(quarry_vector_index_name(${datasetId})))::oid::int AS graph_oid`)) as unknown as {
    rows: {
      graph_rows: number;
      pending: number;
      valid: boolean | null;
      graph_oid: number;
    }[];
  };
  return result.rows[0];
}

describe("an index-vectors message for a large backlog", () => {
  it("builds the dataset's graph in one pass, valid, holding every row", async () => {
    const dataset = await createDataset(
      project,
      { name: "bulk" },
      { embeddingModel: "local/hash" },
    );
    await upsertRows(project, dataset.id, {
      document_id: "many",
      rows: Array.from({ length: 300 }, (_, i) => ({ data: { text: `row ${i} of the harbor` } })),
    });
    const before = await graphOf(dataset.id);
    expect(before).toMatchObject({ graph_rows: 0, pending: 300, valid: true });
    const { id, result } = await consumer.deliver("quarry-index", {
      v: 1,
      kind: "index-vectors",
      projectId: project.projectId,
      datasetId: dataset.id,
    });
    expect(result.retryMessages).toStrictEqual([]);
    expect(result.explicitAcks).toStrictEqual([id]);
    const after = await graphOf(dataset.id);
    expect(after).toMatchObject({ graph_rows: 300, pending: 0, valid: true });
    // A graph grown row by row is the same index; a bulk build dropped it and built a new one.
    expect(after?.graph_oid).not.toBe(before?.graph_oid);
  });
});
