import {
  BULK_BUILD_MAX_WAIT_MS,
  createDataset,
  createProject,
  type ProjectContext,
  upsertRows,
} from "@quarry/core";
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
            WHERE indexrelid = quarry_serving_vector_graph(${datasetId})) AS valid,
           quarry_serving_vector_graph(${datasetId})::oid::int AS graph_oid`)) as unknown as {
    rows: {
      graph_rows: number;
      pending: number;
      valid: boolean | null;
      graph_oid: number;
    }[];
  };
  return result.rows[0];
}

/** A dataset of 300 rows written just now, all waiting for the graph. */
async function writtenDataset(name: string) {
  const dataset = await createDataset(project, { name }, { embeddingModel: "local/hash" });
  await upsertRows(project, dataset.id, {
    document_id: "many",
    rows: Array.from({ length: 300 }, (_, i) => ({ data: { text: `row ${i} of the harbor` } })),
  });
  return dataset.id;
}

const WORDS = ["comet", "lantern", "orchard", "granite", "violin", "meadow", "copper", "falcon"];

function indexVectorsMessage(datasetId: string, extra: Record<string, unknown> = {}) {
  return { v: 1, kind: "index-vectors", projectId: project.projectId, datasetId, ...extra };
}

describe("an index-vectors message for a large backlog", () => {
  it("waits for the dataset's writes to pause, then builds its graph in one pass", async () => {
    const datasetId = await writtenDataset("bulk");
    const before = await graphOf(datasetId);
    expect(before).toMatchObject({ graph_rows: 0, pending: 300, valid: true });

    // Written just now: acknowledged (sent again later), the graph left as it was.
    const during = await consumer.deliver("quarry-index", indexVectorsMessage(datasetId));
    expect(during.result.retryMessages).toStrictEqual([]);
    expect(during.result.explicitAcks).toStrictEqual([during.id]);
    expect(await graphOf(datasetId)).toStrictEqual(before);

    // A minute later, with no write since, the next delivery builds it.
    await consumer.db.execute(
      sql`UPDATE rows SET created_at = created_at - interval '1 minute' WHERE dataset_id = ${datasetId}`,
    );
    const { id, result } = await consumer.deliver("quarry-index", indexVectorsMessage(datasetId));
    expect(result.retryMessages).toStrictEqual([]);
    expect(result.explicitAcks).toStrictEqual([id]);
    const after = await graphOf(datasetId);
    expect(after).toMatchObject({ graph_rows: 300, pending: 0, valid: true });
    // A graph grown row by row is the same index; a bulk build built a new one beside it.
    expect(after?.graph_oid).not.toBe(before?.graph_oid);
  });

  it("measures a rebuilt graph's ef_search again, though it has not doubled", async () => {
    const dataset = await createDataset(
      project,
      { name: "remeasured" },
      { embeddingModel: "local/hash" },
    );
    const measuredRows = async () => {
      const found = (await consumer.db.execute(
        sql`SELECT ef_search_rows FROM datasets WHERE id = ${dataset.id}`,
      )) as unknown as { rows: { ef_search_rows: number | null }[] };
      return found.rows[0]?.ef_search_rows ?? null;
    };
    const writeAndBuild = async (first: number, count: number) => {
      await upsertRows(project, dataset.id, {
        document_id: `part-${first}`,
        rows: Array.from({ length: count }, (_, i) => ({
          data: {
            text: `entry ${first + i}: the ${WORDS[(first + i) % WORDS.length]} by the harbor`,
          },
        })),
      });
      await consumer.db.execute(
        sql`UPDATE rows SET created_at = created_at - interval '1 minute' WHERE dataset_id = ${dataset.id}`,
      );
      const { result } = await consumer.deliver("quarry-index", indexVectorsMessage(dataset.id));
      expect(result.retryMessages).toStrictEqual([]);
    };
    await writeAndBuild(0, 1200); // the first graph, measured once it holds 1,000 vectors
    expect(await measuredRows()).toBe(1200);
    await writeAndBuild(1200, 700); // at least half the graph: rebuilt in bulk, 1,900 < 2 × 1,200
    expect(await graphOf(dataset.id)).toMatchObject({ graph_rows: 1900, pending: 0, valid: true });
    expect(await measuredRows()).toBe(1900);
  });

  it("builds under a stream of writes once the message has waited its longest", async () => {
    const datasetId = await writtenDataset("streamed");
    const waitedFor = async (ms: number) =>
      (
        await consumer.deliver(
          "quarry-index",
          indexVectorsMessage(datasetId, { waitingSince: Date.now() - ms }),
        )
      ).result;
    // Half a minute short of the longest wait: still waiting.
    expect((await waitedFor(BULK_BUILD_MAX_WAIT_MS - 30_000)).retryMessages).toStrictEqual([]);
    expect(await graphOf(datasetId)).toMatchObject({ graph_rows: 0, pending: 300 });
    // The longest wait is over: built, though the rows are as new as before.
    expect((await waitedFor(BULK_BUILD_MAX_WAIT_MS)).retryMessages).toStrictEqual([]);
    expect(await graphOf(datasetId)).toMatchObject({ graph_rows: 300, pending: 0, valid: true });
  });
});
