import {
  createDataset,
  createProject,
  flushPendingIndexEntries,
  type ProjectContext,
  upsertRows,
} from "@quarry/core";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VECTOR_INDEX_ROWS_PER_MESSAGE } from "../src/handlers/index-vectors.ts";
import { type ConsumerHarness, startConsumerHarness } from "./support/consumer-harness.ts";

/**
 * What an `index-vectors` message does besides moving rows into the graph: it frees the
 * backlog's pages at once, empties the search indexes' pending lists, and it measures ef_search as soon as the graph is big enough, not
 * only once the backlog has drained (under a steady stream of writes it never drains, and the
 * dataset would search with its family's default for as long as the writes go on).
 */
let consumer: ConsumerHarness;
let project: ProjectContext;

beforeAll(async () => {
  consumer = await startConsumerHarness();
  project = { db: consumer.db, projectId: (await createProject(consumer.db, { name: "ef" })).id };
});

afterAll(async () => {
  await consumer?.close();
});

const WORDS = (
  "harbor lantern copper meadow falcon granite willow ember quarry thistle cobalt orchard " +
  "glacier saffron beacon marble tundra juniper anchor velvet cinder prairie walnut comet " +
  "basalt heron mosaic tidal amber fjord lichen ridge spruce delta canyon pebble garnet"
).split(" ");

/** A sentence of its own for row `i`: calibration's phrases are cut from stored texts. */
function text(i: number): string {
  return Array.from(
    { length: 12 },
    (_, k) => WORDS[(i * 7 + k * 13 + ((i * k) % 5)) % WORDS.length],
  ).join(" ");
}

async function stateOf(datasetId: string) {
  const result = (await consumer.db.execute(sql`
    SELECT (SELECT count(*)::int FROM indexed_vectors WHERE dataset_id = ${datasetId}) AS graph_rows,
           (SELECT count(*)::int FROM vector_backlog WHERE dataset_id = ${datasetId}) AS pending,
           d.ef_search, d.ef_search_rows, d.ef_search_queries
    FROM datasets d WHERE d.id = ${datasetId}`)) as unknown as {
    rows: {
      graph_rows: number;
      pending: number;
      ef_search: number | null;
      ef_search_rows: number | null;
      ef_search_queries: string | null;
    }[];
  };
  return result.rows[0];
}

async function backlogPages(): Promise<number> {
  const result = (await consumer.db.execute(
    sql`SELECT (pg_relation_size('vector_backlog') / current_setting('block_size')::int)::int AS pages`,
  )) as unknown as { rows: { pages: number }[] };
  return result.rows[0]?.pages ?? -1;
}

function indexVectorsMessage(datasetId: string) {
  return { v: 1, kind: "index-vectors", projectId: project.projectId, datasetId };
}

describe("an index-vectors message that moves the whole backlog", () => {
  it("frees the backlog's pages at once, for the rows written next", async () => {
    const dataset = await createDataset(
      project,
      { name: "queue" },
      { embeddingModel: "local/hash" },
    );
    const burst = async (name: string) =>
      upsertRows(project, dataset.id, {
        document_id: name,
        rows: Array.from({ length: 300 }, (_, i) => ({ data: { text: text(i) } })),
      });
    await burst("first");
    const pages = await backlogPages();
    expect(pages).toBeGreaterThan(10);
    const { id, result } = await consumer.deliver("quarry-index", indexVectorsMessage(dataset.id));
    expect(result.explicitAcks).toStrictEqual([id]);
    expect(await stateOf(dataset.id)).toMatchObject({ graph_rows: 300, pending: 0 });
    // The next 300 waiting rows fill the pages the first left (unvacuumed, the table doubles).
    await burst("second");
    expect(await stateOf(dataset.id)).toMatchObject({ pending: 300 });
    expect(await backlogPages()).toBeLessThanOrEqual(pages);
  });

  it("indexes a message left on the ingest queue, where indexing went before it had its own", async () => {
    const dataset = await createDataset(
      project,
      { name: "leftover" },
      { embeddingModel: "local/hash" },
    );
    await upsertRows(project, dataset.id, {
      document_id: "before-the-split",
      rows: Array.from({ length: 50 }, (_, i) => ({ data: { text: text(i) } })),
    });
    const { id, result } = await consumer.deliver("quarry-ingest", indexVectorsMessage(dataset.id));
    expect(result.explicitAcks).toStrictEqual([id]);
    expect(await stateOf(dataset.id)).toMatchObject({ graph_rows: 50, pending: 0 });
  });

  it("moves the writes' entries out of the search indexes' pending lists", async () => {
    const dataset = await createDataset(
      project,
      { name: "pending", kind: "hybrid" },
      { embeddingModel: "local/hash" },
    );
    await upsertRows(project, dataset.id, {
      document_id: "burst",
      rows: Array.from({ length: 300 }, (_, i) => ({ data: { text: text(i) }, metadata: { i } })),
    });
    await consumer.deliver("quarry-index", indexVectorsMessage(dataset.id));
    // Nothing left for a search, or the next writer, to read through or empty.
    expect(await flushPendingIndexEntries(consumer.db)).toBe(0);
  });
});

describe("an index-vectors message that leaves part of the backlog for the next one", () => {
  it("measures ef_search on the graph it grew, without waiting for the rest", async () => {
    const dataset = await createDataset(
      project,
      { name: "growing" },
      { embeddingModel: "local/hash" },
    );
    const waiting = VECTOR_INDEX_ROWS_PER_MESSAGE + 100;
    for (let first = 0; first < waiting; first += 700) {
      const count = Math.min(700, waiting - first);
      await upsertRows(project, dataset.id, {
        document_id: `part-${first}`,
        rows: Array.from({ length: count }, (_, i) => ({ data: { text: text(first + i) } })),
      });
    }
    expect(await stateOf(dataset.id)).toMatchObject({
      graph_rows: 0,
      pending: waiting,
      ef_search: null,
    });

    const { id, result } = await consumer.deliver("quarry-index", indexVectorsMessage(dataset.id));
    expect(result.retryMessages).toStrictEqual([]);
    expect(result.explicitAcks).toStrictEqual([id]);

    const after = await stateOf(dataset.id);
    // One message's worth moved, the rest still waits; the graph was measured as it stands.
    expect(after).toMatchObject({
      graph_rows: VECTOR_INDEX_ROWS_PER_MESSAGE,
      pending: 100,
      ef_search_rows: VECTOR_INDEX_ROWS_PER_MESSAGE,
      ef_search_queries: "stored_texts",
    });
    expect(after?.ef_search).toBeGreaterThanOrEqual(40);
  });
});
