import { LocalHashEmbedder } from "@quarry/providers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  deleteDataset,
  deleteRow,
  type GraphBuildSession,
  getDataset,
  indexVectors,
  type ProjectContext,
  searchRows,
  updateRow,
  upsertRows,
  VECTOR_GRAPH_DEFAULTS,
  vectorGraphState,
} from "../../src/index.ts";
import { checkInvariants } from "../support/invariants.ts";
import { useNativeSuite } from "../support/native-suite.ts";
import { noFiles } from "../support/no-files.ts";
import { createTenant } from "../support/tenant.ts";

/**
 * Bulk graph builds (core `search/vector-graph-builds.ts`): a large backlog is moved into its
 * partition without a graph, which `CREATE INDEX CONCURRENTLY` then builds in one pass. Native
 * PostgreSQL only: the statements cannot run on the embedded database's one session, which
 * never builds in bulk. After each case the graph must be valid and exact (backlog ∪ graph =
 * the embedded rows, each graph vector its row's embedding).
 */

const suite = useNativeSuite();
let ctx: ProjectContext;
beforeAll(async () => {
  ctx = (await createTenant(suite.fresh.db, "graph-builds")).ctx;
});

/** A session of its own, as the ingest worker opens one for a build. */
function buildSession(): GraphBuildSession {
  const { pool } = suite.connect(1);
  return {
    async execute(statement) {
      await pool.query(statement);
    },
  };
}

/**
 * `indexVectors` as the ingest worker calls it, with a build session of its own; a build due
 * goes ahead however recently the dataset was written unless `quietMs` says otherwise.
 */
function indexWith(
  datasetId: string,
  minRows: number,
  maxRows = 100,
  { quietMs = 0, evenIfWritten = false } = {},
) {
  return indexVectors(suite.fresh.db, datasetId, {
    maxRows,
    builds: { minRows, quietMs, session: buildSession() },
    evenIfWritten,
  });
}

/** Dates the dataset's rows `seconds` back, as if written then. */
async function writtenAgo(datasetId: string, seconds: number) {
  await suite.fresh.sql(
    `UPDATE rows SET created_at = created_at - $2 * interval '1 second' WHERE dataset_id = $1`,
    [datasetId, seconds],
  );
}

/** The next indexer (below the threshold) rebuilds the graph a cut build left: valid, exact. */
async function expectRebuilt(datasetId: string) {
  const repaired = await indexWith(datasetId, 10_000);
  expect(repaired).toEqual({ indexed: 0, pending: 0, graph: "valid", bulk: true });
  expect((await graphIndex(datasetId))?.valid).toBe(true);
  expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
}

const WORDS = ["comet", "harbor", "violin", "orchard", "granite", "lantern", "meadow", "copper"];
const text = (i: number) =>
  `${WORDS[i % 8]} ${WORDS[(i * 3 + 1) % 8]} ${WORDS[(i * 5 + 2) % 8]} number ${i}`;

/** A dataset whose `count` rows all wait in the backlog (nothing indexes them yet). */
async function backloggedDataset(name: string, count: number) {
  const dataset = await createDataset(ctx, { name }, { embeddingModel: "local/hash" });
  for (let first = 0; first < count; first += 500) {
    await upsertRows(ctx, dataset.id, {
      document_id: `doc-${first}`,
      rows: Array.from({ length: Math.min(500, count - first) }, (_, k) => ({
        data: { text: text(first + k) },
      })),
    });
  }
  return dataset.id;
}

/**
 * A transaction with a snapshot older than any build started from now on: a build waits for
 * it before it finishes, so it stays visibly `building` until `release`.
 */
async function holdBuilds() {
  const client = await suite.connect(1).pool.connect();
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
  await client.query("SELECT 1 FROM datasets LIMIT 1");
  return {
    async release() {
      await client.query("COMMIT");
      client.release();
    },
  };
}

async function graphIndex(datasetId: string) {
  const [index] = await suite.fresh.sql<{ valid: boolean; definition: string }>(
    `SELECT i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i WHERE i.indexrelid = to_regclass(quote_ident(quarry_vector_index_name($1)))`,
    [datasetId],
  );
  return index ?? null;
}

async function graphRows(datasetId: string) {
  const [row] = await suite.fresh.sql<{ n: number }>(
    "SELECT count(*)::int AS n FROM indexed_vectors WHERE dataset_id = $1",
    [datasetId],
  );
  return row?.n ?? -1;
}

describe("a bulk graph build", () => {
  it("moves a large backlog at once and builds the graph over it", async () => {
    const datasetId = await backloggedDataset("large", 1200);
    const result = await indexWith(datasetId, 1000);
    expect(result).toEqual({ indexed: 1200, pending: 0, graph: "valid", bulk: true });
    expect(await graphRows(datasetId)).toBe(1200);
    const index = await graphIndex(datasetId);
    expect(index?.valid).toBe(true);
    // Built with the dataset's own graph parameters.
    const { m, efConstruction } = VECTOR_GRAPH_DEFAULTS.local;
    expect(index?.definition).toContain(
      `vector_cosine_ops) WITH (m='${m}', ef_construction='${efConstruction}')`,
    );
    expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
  });

  it("leaves a backlog below the threshold to the row-by-row indexer", async () => {
    const datasetId = await backloggedDataset("small", 300);
    const first = await indexWith(datasetId, 1000);
    expect(first).toEqual({ indexed: 100, pending: 200, graph: "valid", bulk: false });
    expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
  });

  it("keeps a graph that a backlog under half its size would not grow enough", async () => {
    const datasetId = await backloggedDataset("grown", 1200);
    await indexWith(datasetId, 100); // bulk: 1,200
    await upsertRows(ctx, datasetId, {
      document_id: "later",
      rows: Array.from({ length: 150 }, (_, k) => ({ data: { text: text(5000 + k) } })),
    });
    const later = await indexWith(datasetId, 100);
    expect(later).toEqual({ indexed: 100, pending: 50, graph: "valid", bulk: false });
  });

  it("waits for a pause in the dataset's writes", async () => {
    const datasetId = await backloggedDataset("burst", 1200);
    const quiet = { quietMs: 60_000 };
    // Written just now: the build waits, and nothing moves meanwhile (not row by row either).
    const during = await indexWith(datasetId, 1000, 100, quiet);
    expect(during).toEqual({
      indexed: 0,
      pending: 1200,
      graph: "valid",
      bulk: false,
      waitingForQuiet: true,
    });
    expect(await graphRows(datasetId)).toBe(0);
    // A newer row keeps it waiting: what counts is the newest row, not the first.
    await writtenAgo(datasetId, 120);
    await upsertRows(ctx, datasetId, {
      document_id: "newest",
      rows: [{ data: { text: text(9000) } }],
    });
    expect(await indexWith(datasetId, 1000, 100, quiet)).toMatchObject({ waitingForQuiet: true });
    // Once the writes have paused, one build takes the whole backlog.
    await writtenAgo(datasetId, 120);
    expect(await indexWith(datasetId, 1000, 100, quiet)).toEqual({
      indexed: 1201,
      pending: 0,
      graph: "valid",
      bulk: true,
    });
    expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
  });

  it("goes ahead under writes when its caller has waited long enough, or the graph is missing", async () => {
    const waited = await backloggedDataset("waited", 1200);
    expect(
      await indexWith(waited, 1000, 100, { quietMs: 60_000, evenIfWritten: true }),
    ).toMatchObject({ indexed: 1200, pending: 0, graph: "valid", bulk: true });

    // A graph a build dropped is rebuilt at once: until then searches rank the partition.
    const dropped = await backloggedDataset("dropped", 1200);
    const [names] = await suite.fresh.sql<{ graph: string }>(
      "SELECT quarry_vector_index_name($1) AS graph",
      [dropped],
    );
    await suite.fresh.sql(`DROP INDEX ${names!.graph}`);
    expect(await indexWith(dropped, 1000, 100, { quietMs: 60_000 })).toMatchObject({
      indexed: 1200,
      graph: "valid",
      bulk: true,
    });
    expect(await checkInvariants(suite.fresh, { datasetIds: [waited, dropped] })).toEqual([]);
  });

  it("is never taken without a session's go-ahead (minRows 0)", async () => {
    const datasetId = await backloggedDataset("never", 300);
    const result = await indexWith(datasetId, 0, 1000);
    expect(result).toEqual({ indexed: 300, pending: 0, graph: "valid", bulk: false });
  });
});

describe("a build cut short", () => {
  it("leaves searches exact, and the next indexer builds the missing graph", async () => {
    const datasetId = await backloggedDataset("cut-after-drop", 400);
    await indexWith(datasetId, 10_000, 400); // row by row
    // A build that dropped the graph and went no further.
    const [names] = await suite.fresh.sql<{ graph: string }>(
      "SELECT quarry_vector_index_name($1) AS graph",
      [datasetId],
    );
    await suite.fresh.sql(`DROP INDEX ${names!.graph}`);
    expect(await vectorGraphState(suite.fresh.db, datasetId)).toBe("missing");
    expect((await getDataset(ctx, datasetId)).vector_index.graph).toBe("missing");

    // Meanwhile a search ranks the partition exactly.
    const query = "violin orchard lantern";
    const [vector] = await new LocalHashEmbedder(384).embed([query]);
    const searched = await searchRows(ctx, datasetId, { query, top_k: 10, alpha: 1 });
    // (By similarity: the texts repeat their words, so rows tie, in any order.)
    const exact = await suite.fresh.sql<{ similarity: number }>(
      `SELECT 1 - (r.embedding <=> $2::vector) AS similarity FROM rows r WHERE r.dataset_id = $1
       ORDER BY r.embedding <=> $2::vector LIMIT 10`,
      [datasetId, `[${vector!.join(",")}]`],
    );
    expect(searched.results.map((r) => r.confidence.toFixed(5))).toEqual(
      exact.map((r) => Number(r.similarity).toFixed(5)),
    );

    await expectRebuilt(datasetId);
  });

  it("drops a graph left invalid and builds it again", async () => {
    const datasetId = await backloggedDataset("cut-during-build", 400);
    await indexWith(datasetId, 10_000, 400);
    // What a CREATE INDEX CONCURRENTLY whose session ended leaves behind.
    await suite.fresh.sql(
      `UPDATE pg_index SET indisvalid = false
       WHERE indexrelid = to_regclass(quote_ident(quarry_vector_index_name($1)))`,
      [datasetId],
    );
    expect(await vectorGraphState(suite.fresh.db, datasetId)).toBe("invalid");
    await expectRebuilt(datasetId);
  });

  it("leaves a graph being built to its builder", async () => {
    const datasetId = await backloggedDataset("being-built", 1200);
    const blocker = await holdBuilds();
    const building = indexWith(datasetId, 1000);
    try {
      await waitFor(async () => (await vectorGraphState(suite.fresh.db, datasetId)) === "building");
      const second = await indexWith(datasetId, 1000);
      expect(second).toEqual({ indexed: 0, pending: 0, graph: "building", bulk: false });
      // What a client sees: nothing waits, and the graph is not serving searches yet.
      expect((await getDataset(ctx, datasetId)).vector_index).toMatchObject({
        pending_rows: 0,
        graph: "building",
      });
    } finally {
      await blocker.release();
    }
    expect(await building).toEqual({ indexed: 1200, pending: 0, graph: "valid", bulk: true });
    expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
  });
});

describe("deleting a dataset during its graph's build", () => {
  it("cancels the build instead of waiting minutes for it", async () => {
    const datasetId = await backloggedDataset("deleted-while-built", 1200);
    const blocker = await holdBuilds();
    const building = indexWith(datasetId, 1000).then(
      () => "finished",
      (error: { code?: string }) => error.code,
    );
    try {
      await waitFor(async () => (await vectorGraphState(suite.fresh.db, datasetId)) === "building");
      const deleter = { ...ctx, db: suite.connect(1).db };
      const deleted = deleteDataset(deleter, datasetId, noFiles).then(() => "deleted");
      const waited = new Promise((resolve) => setTimeout(() => resolve("still waiting"), 10_000));
      expect(await Promise.race([deleted, waited])).toBe("deleted");
      // The build was cancelled (57014), leaving nothing behind: its table went with the dataset.
      expect(await building).toBe("57014");
    } finally {
      await blocker.release();
    }
    expect(await vectorGraphState(suite.fresh.db, datasetId)).toBeNull();
    const [left] = await suite.fresh.sql<{ partition: string | null }>(
      "SELECT to_regclass(quote_ident(quarry_vector_partition_name($1)))::text AS partition",
      [datasetId],
    );
    expect(left?.partition).toBeNull();
  });
});

describe("a bulk build beside writers", () => {
  it("keeps the graph exact while rows are re-embedded, deleted and replaced", async () => {
    const datasetId = await backloggedDataset("busy", 2000);
    const writer = { ...ctx, db: suite.connect(2).db };
    const rowIds = (
      await suite.fresh.sql<{ id: string }>(
        "SELECT id::text AS id FROM rows WHERE dataset_id = $1 ORDER BY id",
        [datasetId],
      )
    ).map((r) => r.id);
    let done = false;
    const build = indexWith(datasetId, 1000).finally(() => {
      done = true;
    });
    let writes = 0;
    for (let i = 0; !done; i++) {
      const id = rowIds[(i * 37) % rowIds.length]!;
      if (i % 3 === 0) {
        await updateRow(writer, datasetId, id, { data: { text: text(9000 + i) } }).catch(gone);
      } else if (i % 3 === 1) {
        await deleteRow(writer, datasetId, id).catch(gone);
      } else {
        await upsertRows(writer, datasetId, {
          document_id: `doc-${(i % 4) * 500}`,
          rows: [{ data: { text: text(20_000 + i) } }, { data: { text: text(30_000 + i) } }],
        });
      }
      writes++;
    }
    const result = await build;
    expect(result.bulk).toBe(true);
    expect(writes).toBeGreaterThan(0);
    // What the writers put back in the backlog meanwhile, row by row.
    await indexVectors(suite.fresh.db, datasetId, { maxRows: 10_000 });
    expect(await vectorGraphState(suite.fresh.db, datasetId)).toBe("valid");
    expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
  });
});

/** A row another write removed first (its document replaced, or deleted twice): fine here. */
function gone(error: unknown) {
  if ((error as { status?: number }).status === 404) return;
  if (error instanceof Error && /not found|does not exist/i.test(error.message)) return;
  throw error;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the condition");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
