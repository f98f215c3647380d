import { LocalHashEmbedder } from "@quarry/providers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createDataset,
  type DatasetRecord,
  deleteDataset,
  deleteRow,
  type GraphBuildSession,
  getDataset,
  indexVectors,
  moveBacklogRows,
  type ProjectContext,
  searchRows,
  semanticRankingQuery,
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
 * partition as the next graph generation, which the serving graph does not take, and `CREATE
 * INDEX CONCURRENTLY` builds the next graph over every vector in one pass beside the serving
 * one, which serves until then. Native PostgreSQL only: the statements cannot run on the
 * embedded database's one session, which never builds in bulk. After each case the graph must be
 * valid and exact (backlog ∪ graph = the embedded rows, each graph vector its row's embedding).
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
async function expectRebuilt(datasetId: string, indexed = 0) {
  const repaired = await indexWith(datasetId, 10_000);
  expect(repaired).toEqual({ indexed, pending: 0, graph: "valid", bulk: true });
  await expectServedAlone(datasetId);
}

/**
 * After a build: one graph on the partition, valid and serving, over every vector (none of a
 * newer generation waits), nothing reported as waiting, and the graph exact.
 */
async function expectServedAlone(datasetId: string) {
  expect((await graphIndex(datasetId))?.valid).toBe(true);
  const [graphs] = await suite.fresh.sql<{ graphs: number; newer: number }>(
    `SELECT (SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             JOIN pg_am a ON a.oid = c.relam
             WHERE i.indrelid = to_regclass(quote_ident(quarry_vector_partition_name($1)))
               AND a.amname = 'hnsw')::int AS graphs,
            (SELECT count(*) FROM indexed_vectors v JOIN datasets d ON d.id = v.dataset_id
             WHERE v.dataset_id = $1 AND v.graph_generation > d.graph_generation)::int AS newer`,
    [datasetId],
  );
  expect(graphs).toEqual({ graphs: 1, newer: 0 });
  expect((await getDataset(ctx, datasetId)).vector_index).toMatchObject({
    pending_rows: 0,
    graph: "valid",
    rebuilding: false,
  });
  expect(await checkInvariants(suite.fresh, { datasetIds: [datasetId] })).toEqual([]);
}

/** Builds the dataset's next graph as a bulk build would, and goes no further (no serving). */
async function buildNextGraph(datasetId: string) {
  const [state] = await suite.fresh.sql<{ build_sql: string }>(
    "SELECT build_sql FROM quarry_vector_graph_state($1)",
    [datasetId],
  );
  await suite.fresh.sql(state!.build_sql);
}

/** Whether a `CREATE INDEX` runs on the dataset's partition. */
async function buildUnderWay(datasetId: string) {
  const [row] = await suite.fresh.sql<{ building: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_stat_progress_create_index p
       WHERE p.relid = to_regclass(quote_ident(quarry_vector_partition_name($1)))) AS building`,
    [datasetId],
  );
  return row?.building === true;
}

/**
 * The plan of E2's statement for the dataset as it is served now, with sequential scans and
 * sorts priced out: a few thousand rows are ranked more cheaply without a graph, and this shows
 * the graph the planner would walk.
 */
async function planOfSemanticSearch(datasetId: string, query: string) {
  const [vector] = await new LocalHashEmbedder(384).embed([query]);
  const statement = semanticRankingQuery(
    {
      id: datasetId,
      dimensions: 384,
      embeddingModel: "local/hash",
      efSearch: null,
      graphGeneration: await servedGeneration(datasetId),
      graphEncoding: await graphEncodingOf(datasetId),
    },
    vector!,
    10,
  );
  const client = await suite.connect(1).pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL enable_seqscan = off");
    await client.query("SET LOCAL enable_sort = off");
    const plan = await client.query<{ "QUERY PLAN": string }>(
      `EXPLAIN ${statement.text}`,
      statement.params,
    );
    await client.query("ROLLBACK");
    return plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
  } finally {
    client.release();
  }
}

/** The dataset's serving generation (`datasets.graph_generation`). */
async function servedGeneration(datasetId: string) {
  const [row] = await suite.fresh.sql<{ generation: number }>(
    "SELECT graph_generation AS generation FROM datasets WHERE id = $1",
    [datasetId],
  );
  return row?.generation ?? -1;
}

async function graphEncodingOf(datasetId: string) {
  const [row] = await suite.fresh.sql<{ encoding: DatasetRecord["graphEncoding"] }>(
    "SELECT graph_encoding AS encoding FROM datasets WHERE id = $1",
    [datasetId],
  );
  if (!row) throw new Error(`no dataset ${datasetId}`);
  return row.encoding;
}

/** The dataset's serving graph's name (`quarry_serving_vector_graph`). */
async function servingGraphName(datasetId: string) {
  const [row] = await suite.fresh.sql<{ graph: string | null }>(
    "SELECT quarry_serving_vector_graph($1)::text AS graph",
    [datasetId],
  );
  return row?.graph ?? null;
}

/** Top-10 similarities of a search, and of an exact ranking of every row of the dataset. */
async function searchedAndExact(datasetId: string, query: string) {
  const [vector] = await new LocalHashEmbedder(384).embed([query]);
  const searched = await searchRows(ctx, datasetId, { query, top_k: 10, alpha: 1 });
  // (By similarity: the texts repeat their words, so rows tie, in any order.)
  const exact = await suite.fresh.sql<{ similarity: number }>(
    `SELECT 1 - (r.embedding <=> $2::vector) AS similarity FROM rows r WHERE r.dataset_id = $1
     ORDER BY r.embedding <=> $2::vector LIMIT 10`,
    [datasetId, `[${vector!.join(",")}]`],
  );
  return {
    searched: searched.results.map((r) => r.confidence.toFixed(5)),
    exact: exact.map((r) => Number(r.similarity).toFixed(5)),
  };
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

/** The dataset's serving graph. */
async function graphIndex(datasetId: string) {
  const [index] = await suite.fresh.sql<{ valid: boolean; definition: string }>(
    `SELECT i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i WHERE i.indexrelid = quarry_serving_vector_graph($1)`,
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
      `::halfvec(384)) halfvec_cosine_ops) WITH (m='${m}', ef_construction='${efConstruction}') WHERE (graph_generation <= 1)`,
    );
    expect(await servedGeneration(datasetId)).toBe(1);
    await expectServedAlone(datasetId);
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
    await suite.fresh.sql(`DROP INDEX ${await servingGraphName(dropped)}`);
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
    // A graph dropped by a build that went no further (as builds did before generations).
    await suite.fresh.sql(`DROP INDEX ${await servingGraphName(datasetId)}`);
    expect(await vectorGraphState(suite.fresh.db, datasetId)).toEqual({
      graph: "missing",
      rebuilding: false,
    });
    expect((await getDataset(ctx, datasetId)).vector_index.graph).toBe("missing");

    // Meanwhile a search ranks the partition exactly.
    const ranked = await searchedAndExact(datasetId, "violin orchard lantern");
    expect(ranked.searched).toEqual(ranked.exact);

    await expectRebuilt(datasetId);
  });

  it("finishes a build that moved its vectors and went no further, searched exactly meanwhile", async () => {
    const datasetId = await backloggedDataset("cut-after-move", 1600);
    await indexWith(datasetId, 10_000, 400); // 400 row by row into the serving graph
    // A build that moved the rest in as the next generation, and stopped before its graph.
    await moveBacklogRows(suite.fresh.db, datasetId, 5000, 1);
    expect((await getDataset(ctx, datasetId)).vector_index).toMatchObject({
      pending_rows: 1200,
      graph: "valid",
      rebuilding: true,
    });
    const ranked = await searchedAndExact(datasetId, "comet granite meadow");
    expect(ranked.searched).toEqual(ranked.exact);
    // The next indexer, whatever its threshold, finishes it.
    await expectRebuilt(datasetId);
    expect(await servedGeneration(datasetId)).toBe(1);
  });

  it("serves a graph built but not served, and drops the older ones left behind", async () => {
    const datasetId = await backloggedDataset("cut-after-build", 1200);
    await indexWith(datasetId, 1000); // bulk: generation 1
    // The next generation's graph, built, and not served (its build's session ended there) …
    await buildNextGraph(datasetId);
    // … and an older one that a build cut short after serving its own left behind.
    await suite.fresh.sql(
      `DO $$ BEGIN EXECUTE quarry_vector_graph_index_sql('${datasetId}', 384, 'halfvec', 16, 64, false, 0); END $$`,
    );
    expect(await vectorGraphState(suite.fresh.db, datasetId)).toEqual({
      graph: "valid",
      rebuilding: true,
    });
    await expectRebuilt(datasetId);
    expect(await servedGeneration(datasetId)).toBe(2);
  });

  it("drops a graph left invalid and builds it again", async () => {
    const datasetId = await backloggedDataset("cut-during-build", 400);
    await indexWith(datasetId, 10_000, 400);
    // What a CREATE INDEX CONCURRENTLY whose session ended leaves behind (before generations,
    // the serving graph's own build).
    await suite.fresh.sql(
      `UPDATE pg_index SET indisvalid = false WHERE indexrelid = quarry_serving_vector_graph($1)`,
      [datasetId],
    );
    expect(await vectorGraphState(suite.fresh.db, datasetId)).toEqual({
      graph: "invalid",
      rebuilding: false,
    });
    await expectRebuilt(datasetId);
  });

  it("drops the next graph a build left invalid and builds it again", async () => {
    const datasetId = await backloggedDataset("cut-during-next", 1600);
    await indexWith(datasetId, 10_000, 400);
    await moveBacklogRows(suite.fresh.db, datasetId, 5000, 1);
    await buildNextGraph(datasetId);
    await suite.fresh.sql(
      `UPDATE pg_index SET indisvalid = false
       WHERE indexrelid = to_regclass(quote_ident(quarry_vector_graph_name($1, 1)))`,
      [datasetId],
    );
    expect(await vectorGraphState(suite.fresh.db, datasetId)).toEqual({
      graph: "valid",
      rebuilding: true,
    });
    await expectRebuilt(datasetId);
  });

  it("leaves a graph being built to its builder", async () => {
    const datasetId = await backloggedDataset("being-built", 1200);
    const blocker = await holdBuilds();
    const building = indexWith(datasetId, 1000);
    try {
      await waitFor(() => buildUnderWay(datasetId));
      const second = await indexWith(datasetId, 1000);
      expect(second).toEqual({ indexed: 0, pending: 0, graph: "building", bulk: false });
      // What a client sees: the rows wait for the new graph, the old one serves meanwhile.
      expect((await getDataset(ctx, datasetId)).vector_index).toMatchObject({
        pending_rows: 1200,
        graph: "valid",
        rebuilding: true,
      });
    } finally {
      await blocker.release();
    }
    expect(await building).toEqual({ indexed: 1200, pending: 0, graph: "valid", bulk: true });
    await expectServedAlone(datasetId);
  });
});

describe("a rebuild beside the serving graph", () => {
  it("searches through the old graph until the new one serves, then drops the old one", async () => {
    const datasetId = await backloggedDataset("rebuilt", 1200);
    await indexWith(datasetId, 1000); // bulk: generation 1 serves 1,200 vectors
    const before = await servingGraphName(datasetId);
    await upsertRows(ctx, datasetId, {
      document_id: "more",
      rows: Array.from({ length: 800 }, (_, k) => ({ data: { text: text(40_000 + k) } })),
    });
    const blocker = await holdBuilds();
    const building = indexWith(datasetId, 500);
    try {
      await waitFor(() => buildUnderWay(datasetId));
      expect((await getDataset(ctx, datasetId)).vector_index).toMatchObject({
        pending_rows: 800,
        graph: "valid",
        rebuilding: true,
      });
      // E2 walks the serving graph (a build that dropped it left a sequential scan) …
      expect(await planOfSemanticSearch(datasetId, "copper harbor")).toContain(
        `Index Scan using ${before}`,
      );
      // … and ranks the 800 moved rows exactly beside it.
      const ranked = await searchedAndExact(datasetId, "copper harbor number");
      expect(ranked.searched).toEqual(ranked.exact);
    } finally {
      await blocker.release();
    }
    expect(await building).toEqual({ indexed: 800, pending: 0, graph: "valid", bulk: true });
    expect(await servedGeneration(datasetId)).toBe(2);
    expect(await servingGraphName(datasetId)).not.toBe(before);
    await expectServedAlone(datasetId);
    const ranked = await searchedAndExact(datasetId, "copper harbor number");
    expect(ranked.searched).toEqual(ranked.exact);
    // A search that read the generation before the new graph served, and runs after the old
    // one was dropped: the new graph keeps the older vectors, the newer ones are ranked exactly.
    const [vector] = await new LocalHashEmbedder(384).embed(["copper harbor number"]);
    const stale = semanticRankingQuery(
      {
        id: datasetId,
        dimensions: 384,
        embeddingModel: "local/hash",
        efSearch: 1000,
        graphGeneration: 1,
        graphEncoding: "halfvec",
      },
      vector!,
      10,
    );
    const answered = await suite.fresh.sql<{ confidence: number }>(stale.text, stale.params);
    expect(answered.map((r) => Number(r.confidence).toFixed(5))).toEqual(ranked.exact);
  });

  it("drops a graph that predates generations first, and builds one that has them", async () => {
    const datasetId = await backloggedDataset("legacy", 1200);
    // The dataset's graph as migration 0017 built it: every vector of the partition, in full
    // precision, as every graph was until 0030.
    await suite.fresh.sql(`DROP INDEX ${await servingGraphName(datasetId)}`);
    await suite.fresh.sql("UPDATE datasets SET graph_encoding = 'vector' WHERE id = $1", [
      datasetId,
    ]);
    await suite.fresh.sql(
      `DO $$ BEGIN EXECUTE format(
         'CREATE INDEX %I ON %I USING hnsw ((%s) vector_cosine_ops)',
         quarry_vector_index_name('${datasetId}'), quarry_vector_partition_name('${datasetId}'),
         quarry_vector_expression(384)); END $$`,
    );
    const legacy = await servingGraphName(datasetId);
    expect(legacy).toMatch(/_graph$/);
    // It serves generation 0, whose predicate the search repeats as a filter.
    await indexWith(datasetId, 10_000, 100); // 100 rows into it, row by row
    expect(await planOfSemanticSearch(datasetId, "granite lantern")).toContain(
      `Index Scan using ${legacy}`,
    );
    expect(await indexWith(datasetId, 1000)).toEqual({
      indexed: 1100,
      pending: 0,
      graph: "valid",
      bulk: true,
    });
    expect(await servingGraphName(datasetId)).toMatch(/_graph_1$/);
    expect((await graphIndex(datasetId))?.definition).toContain("WHERE (graph_generation <= 1)");
    await expectServedAlone(datasetId);
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
      await waitFor(() => buildUnderWay(datasetId));
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
    await expectServedAlone(datasetId);
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
