import type { Database } from "@quarry/db";
import { type SQL, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  calibrateEfSearch,
  createDataset,
  datasetEfSearch,
  defaultEfSearch,
  EF_SEARCH_CALIBRATION,
  EF_SEARCH_DEFAULTS,
  foldKeywordDeltas,
  getDataset,
  indexVectorBacklog,
  loadQuerySamples,
  MAX_EF_SEARCH,
  type ProjectContext,
  QUERY_SAMPLES,
  type QuerySampler,
  queryPhrases,
  type RowSearchInput,
  recallBound,
  recordQuerySample,
  requireDataset,
  SemanticSearch,
  samplesCallForCalibration,
  searchRows,
  upsertRows,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
import { SMALL_GRAPH } from "./support/small-graph.ts";
import { createTenant } from "./support/tenant.ts";

const database = useFreshDatabase();

async function rowsOf<T>(query: SQL): Promise<T[]> {
  return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

// Eight words a row from a vocabulary of 64, chosen by a fixed pseudo-random walk: varied
// bag-of-words vectors, as prose gives the hash embedder.
const WORDS =
  "comets bread bonds tides glaciers compilers roses lanterns orchards violins harbors deserts canyons meteors rivers mosaics kettles falcons prisms ledgers meadows quarries beacons anvils tundras sonnets bridges candles maples oysters pylons geysers ferns dunes reefs looms kilns tulips comedies atlases chisels mantles banners wharves vessels saddles thistles barley copper falcon granite harvest islands jasmine lagoon marble nectar opal pepper quartz saffron timber velvet walnut yarrow".split(
    " ",
  );
let seed = 11;
function text(): string {
  return Array.from({ length: 8 }, () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return WORDS[seed % WORDS.length];
  }).join(" ");
}

/** Writes rows until the dataset holds `total`, then moves them all into its graph. */
async function growTo(ctx: ProjectContext, datasetId: string, from: number, total: number) {
  for (let first = from; first < total; first += 500) {
    const n = Math.min(500, total - first);
    await upsertRows(ctx, datasetId, {
      document_id: `doc-${first}`,
      rows: Array.from({ length: n }, () => ({ data: { text: text() } })),
    });
  }
  await foldKeywordDeltas(database.db, datasetId);
  expect((await indexVectorBacklog(database.db, datasetId, 100_000)).pending).toBe(0);
}

/**
 * Recall@10 of the dataset's graph search at its stored ef_search, measured here with queries
 * of our own (sums of two stored vectors drawn by this test) against an exact ranking of `rows`.
 */
async function independentRecall(ctx: ProjectContext, datasetId: string, queries: number) {
  const dataset = await requireDataset({ ...ctx, loaded: new Map() }, datasetId);
  const stored = await rowsOf<{ e: string }>(
    sql`SELECT embedding::text AS e FROM rows WHERE dataset_id = ${datasetId}
        ORDER BY id DESC LIMIT ${queries * 2}`,
  );
  const vectors = stored.map((r) => JSON.parse(r.e) as number[]);
  let hits = 0;
  for (let i = 0; i < queries; i++) {
    const sum = (vectors[2 * i] as number[]).map((x, j) => x + (vectors[2 * i + 1]?.[j] ?? 0));
    const norm = Math.hypot(...sum);
    const query = sum.map((x) => x / norm);
    const exact = await rowsOf<{ d: number }>(
      sql`WITH c AS MATERIALIZED (
            SELECT embedding::vector(384) <=> ${`[${query.join(",")}]`}::vector(384) AS d
            FROM rows WHERE dataset_id = ${datasetId})
          SELECT d FROM c ORDER BY d LIMIT 10`,
    );
    const kth = Number(exact[9]?.d);
    const search = new SemanticSearch(dataset, query, undefined);
    const found = await rowsOf<{ confidence: number }>(search.rankSql(10));
    hits += found.filter((r) => 1 - Number(r.confidence) <= kth + 1e-6).length;
  }
  return hits / (queries * 10);
}

/** The `hnsw.ef_search` a search ran with: `set_config(…, true)` lasts until its transaction ends. */
async function efSearchOfSearch(
  ctx: ProjectContext,
  datasetId: string,
  body: RowSearchInput,
): Promise<number> {
  return database.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('hnsw.ef_search', '17', true)`);
    await searchRows({ ...ctx, db: tx as unknown as Database }, datasetId, body);
    const [row] = (
      (await tx.execute(sql`SELECT current_setting('hnsw.ef_search') AS ef`)) as {
        rows: { ef: string }[];
      }
    ).rows;
    return Number(row?.ef);
  });
}

describe("ef_search defaults", () => {
  it("depend on the model family: the hash embedder needs a longer list than trained models", () => {
    expect(defaultEfSearch("local/hash")).toBe(EF_SEARCH_DEFAULTS.local);
    expect(defaultEfSearch("openai/text-embedding-3-small")).toBe(EF_SEARCH_DEFAULTS.trained);
    expect(defaultEfSearch("workers-ai/@cf/baai/bge-small-en-v1.5")).toBe(
      EF_SEARCH_DEFAULTS.trained,
    );
    expect(EF_SEARCH_DEFAULTS.local).toBeGreaterThan(EF_SEARCH_DEFAULTS.trained);
    // a measured value wins over the default; pgvector's ceiling caps both
    expect(datasetEfSearch({ embeddingModel: "local/hash", efSearch: null })).toBe(
      EF_SEARCH_DEFAULTS.local,
    );
    expect(datasetEfSearch({ embeddingModel: "local/hash", efSearch: 64 })).toBe(64);
    expect(datasetEfSearch({ embeddingModel: "openai/x", efSearch: 5000 })).toBe(MAX_EF_SEARCH);
  });
});

/**
 * The first test grows a graph row by row to 4,500 vectors and measures it four times: ~30 s
 * alone on PGlite here, 66 s once in CI beside the other domain worker and a second job on the
 * same 2 cores, past the default 60 s.
 */
const CALIBRATION_TEST_MS = 180_000;

describe("ef_search calibration", () => {
  it(
    "measures a graph of 1,000+ vectors, stores the list size reaching the target recall, and waits for it to double",
    async () => {
      const { ctx } = await createTenant(database.db, "calibrate");
      const { id } = await createDataset(
        ctx,
        { name: "c" },
        { embeddingModel: "local/hash", graph: SMALL_GRAPH },
      );

      await growTo(ctx, id, 0, 900);
      expect(await calibrateEfSearch(ctx, id)).toEqual({
        measured: false,
        reason: "not_due",
        rows: 900,
      });
      // A rebuilt graph under 1,000 vectors is not measured either.
      expect(await calibrateEfSearch(ctx, id, { rebuilt: true })).toEqual({
        measured: false,
        reason: "not_due",
        rows: 900,
      });
      expect((await getDataset(ctx, id)).vector_index).toEqual({
        pending_rows: 0,
        graph: "valid",
        rebuilding: false,
        ef_search: EF_SEARCH_DEFAULTS.local,
        recall_at_10: null,
        measured_rows: null,
        measured_on: null,
        measured_queries: null,
        m: SMALL_GRAPH.m,
        ef_construction: SMALL_GRAPH.efConstruction,
        encoding: SMALL_GRAPH.encoding,
      });

      await growTo(ctx, id, 900, 2000);
      const first = await calibrateEfSearch(ctx, id);
      if (!first.measured) throw new Error(`not measured: ${first.reason}`);
      expect(first).toMatchObject({
        rows: 2000,
        queries: EF_SEARCH_CALIBRATION.queries,
        queriesFrom: "stored_texts",
        stored: true,
      });
      expect(EF_SEARCH_CALIBRATION.ladder).toContain(first.efSearch);
      expect(first.efSearch).toBeLessThanOrEqual(MAX_EF_SEARCH);
      if (first.efSearch < MAX_EF_SEARCH) {
        expect(first.lowerBound).toBeGreaterThanOrEqual(EF_SEARCH_CALIBRATION.promisedRecall);
      }
      expect(first.recall).toBeGreaterThanOrEqual(first.lowerBound);
      const [stored] = await rowsOf<Record<string, unknown>>(
        sql`SELECT ef_search, ef_search_recall, ef_search_rows, ef_search_measured_at
          FROM datasets WHERE id = ${id}`,
      );
      expect(stored).toMatchObject({ ef_search: first.efSearch, ef_search_rows: 2000 });
      expect(Number(stored?.ef_search_recall)).toBeCloseTo(first.recall, 5);
      expect(stored?.ef_search_measured_at).not.toBeNull();
      expect((await getDataset(ctx, id)).vector_index).toEqual({
        pending_rows: 0,
        graph: "valid",
        rebuilding: false,
        ef_search: first.efSearch,
        recall_at_10: first.recall,
        measured_rows: 2000,
        measured_on: "stored_texts",
        measured_queries: EF_SEARCH_CALIBRATION.queries,
        m: SMALL_GRAPH.m,
        ef_construction: SMALL_GRAPH.efConstruction,
        encoding: SMALL_GRAPH.encoding,
      });
      // What the stored size gives searches, by queries and an exact ranking of our own.
      expect(await independentRecall(ctx, id, 20)).toBeGreaterThanOrEqual(0.93);

      expect(await calibrateEfSearch(ctx, id)).toMatchObject({
        measured: false,
        reason: "not_due",
      });
      await growTo(ctx, id, 2000, 3900);
      expect(await calibrateEfSearch(ctx, id)).toEqual({
        measured: false,
        reason: "not_due",
        rows: 3900,
      });
      await growTo(ctx, id, 3900, 4000);
      const second = await calibrateEfSearch(ctx, id);
      expect(second).toMatchObject({ measured: true, rows: 4000, stored: true });
      expect((await getDataset(ctx, id)).vector_index.measured_rows).toBe(4000);
      // A new graph (a bulk build's) is measured again at once, whatever its growth.
      await growTo(ctx, id, 4000, 4500);
      expect(await calibrateEfSearch(ctx, id)).toMatchObject({
        measured: false,
        reason: "not_due",
      });
      expect(await calibrateEfSearch(ctx, id, { rebuilt: true })).toMatchObject({
        measured: true,
        rows: 4500,
        stored: true,
      });
    },
    CALIBRATION_TEST_MS,
  );
});

describe("the recall a calibration accepts", () => {
  it("is bounded below by the sample's spread: a small sample needs more headroom than a large one", () => {
    // 27 queries find all 10 neighbours, 3 find 7: recall 0.97 either way
    const sample = [...Array(27).fill(10), 7, 7, 7];
    expect(recallBound(sample, 10)).toEqual({ recall: 0.97, lowerBound: 0.9425 });
    const fourTimes = [...sample, ...sample, ...sample, ...sample];
    expect(recallBound(fourTimes, 10)).toEqual({ recall: 0.97, lowerBound: 0.9564 });
    // so the same list size fails the promise on 30 queries and meets it on 120
    expect(recallBound(sample, 10).lowerBound).toBeLessThan(EF_SEARCH_CALIBRATION.promisedRecall);
    expect(recallBound(fourTimes, 10).lowerBound).toBeGreaterThanOrEqual(
      EF_SEARCH_CALIBRATION.promisedRecall,
    );
    // queries that agree: the bound is the recall
    expect(recallBound(Array(30).fill(9), 10)).toEqual({ recall: 0.9, lowerBound: 0.9 });
    expect(recallBound([], 10)).toEqual({ recall: 0, lowerBound: 0 });
  });
});

describe("ef_search measured on the dataset's own searches", () => {
  it("keeps the query vectors of semantic and hybrid searches, and measures again on them once it holds enough", async () => {
    const { ctx } = await createTenant(database.db, "samples");
    const { id } = await createDataset(
      ctx,
      { name: "s" },
      { embeddingModel: "local/hash", graph: SMALL_GRAPH },
    );
    await growTo(ctx, id, 0, 1500);
    expect(await calibrateEfSearch(ctx, id)).toMatchObject({
      measured: true,
      queriesFrom: "stored_texts",
      rows: 1500,
    });

    // The edge's sampler keeps some searches' vectors after the reply; this one keeps all.
    // One after the other, so that each says how many were kept before it.
    const offered: number[][] = [];
    const kept: Promise<number>[] = [];
    const sampler: QuerySampler = {
      offer: (dataset, vector) => {
        const slot = offered.push([...vector]) - 1;
        const previous = kept.at(-1) ?? Promise.resolve(0);
        kept.push(previous.then(() => recordQuerySample(database.db, dataset, vector, slot)));
      },
    };
    const searching: ProjectContext = { ...ctx, loaded: new Map(), querySamples: sampler };
    const enough = QUERY_SAMPLES.minForCalibration;
    const query = (i: number) =>
      `${WORDS[i % 64]} ${WORDS[(i * 7 + 3) % 64]} ${WORDS[(i * 13 + 5) % 64]}`;
    for (let i = 0; i < enough - 1; i++)
      await searchRows(searching, id, { query: query(i), alpha: 1 });
    // A keyword search embeds no query: nothing to keep.
    await searchRows(searching, id, { query: query(0), alpha: 0 });
    expect(offered).toHaveLength(enough - 1);
    // Each sample says how many the dataset held before it.
    expect(await Promise.all(kept)).toEqual(offered.map((_, i) => i));
    const measured = await requireDataset({ ...ctx, loaded: new Map() }, id);
    expect(samplesCallForCalibration(measured, enough - 1)).toBe(false);
    expect(await calibrateEfSearch(ctx, id)).toMatchObject({ measured: false, reason: "not_due" });

    // A hybrid search's query is the graph's too.
    await searchRows(searching, id, { query: query(enough), alpha: 0.5 });
    expect(await Promise.all(kept)).toHaveLength(enough);
    expect(samplesCallForCalibration(measured, enough)).toBe(true);
    const again = await calibrateEfSearch(ctx, id);
    if (!again.measured) throw new Error(`not measured: ${again.reason}`);
    expect(again).toMatchObject({
      queriesFrom: "searches",
      queries: enough,
      rows: 1500,
      stored: true,
    });
    expect((await getDataset(ctx, id)).vector_index).toMatchObject({
      ef_search: again.efSearch,
      recall_at_10: again.recall,
      measured_rows: 1500,
      measured_on: "searches",
      measured_queries: enough,
    });
    // Measured on 30 searches: not again until it keeps twice as many, or the graph doubles.
    const remeasured = await requireDataset({ ...ctx, loaded: new Map() }, id);
    expect(remeasured.efSearchQueryCount).toBe(enough);
    expect(samplesCallForCalibration(remeasured, 2 * enough - 1)).toBe(false);
    expect(samplesCallForCalibration(remeasured, 2 * enough)).toBe(true);
    expect(await calibrateEfSearch(ctx, id)).toMatchObject({ measured: false, reason: "not_due" });
    for (let i = enough + 1; i < 2 * enough; i++)
      await searchRows(searching, id, { query: query(i), alpha: 1 });
    expect(await calibrateEfSearch(ctx, id)).toMatchObject({ measured: false, reason: "not_due" });
    await searchRows(searching, id, { query: query(2 * enough), alpha: 1 });
    expect(await Promise.all(kept)).toHaveLength(2 * enough);
    const doubled = await calibrateEfSearch(ctx, id);
    expect(doubled).toMatchObject({ measured: true, queries: 2 * enough, stored: true });
    expect((await getDataset(ctx, id)).vector_index.measured_queries).toBe(2 * enough);

    // What the calibration read back is what the searches embedded (to float4's precision).
    const samples = await loadQuerySamples(database.db, id);
    expect(samples).toHaveLength(2 * enough);
    for (const vector of offered) {
      const match = samples.find((s) => s.every((x, j) => Math.abs(x - (vector[j] ?? 0)) < 1e-6));
      expect(match).toBeDefined();
    }
  });

  it("are measured again on twice the searches, until a full ring has been ranked", () => {
    const slots = QUERY_SAMPLES.slots;
    const measured = (count: number | null) => ({
      efSearchRows: 5000,
      efSearchQueries: "searches" as const,
      efSearchQueryCount: count,
    });
    expect(samplesCallForCalibration(measured(60), 119)).toBe(false);
    expect(samplesCallForCalibration(measured(60), 120)).toBe(true);
    // twice would not fit: the full ring
    expect(samplesCallForCalibration(measured(100), slots - 1)).toBe(false);
    expect(samplesCallForCalibration(measured(100), slots)).toBe(true);
    expect(samplesCallForCalibration(measured(slots), slots)).toBe(false);
    // a search that stored a sample into a full ring counts one more than the ring holds
    expect(samplesCallForCalibration(measured(slots), slots + 1)).toBe(false);
    // measured before the count was kept: as if on the fewest searches measured on
    expect(samplesCallForCalibration(measured(null), 2 * QUERY_SAMPLES.minForCalibration)).toBe(
      true,
    );
    // never measured: the graph's size decides, not the samples
    expect(
      samplesCallForCalibration(
        { efSearchRows: null, efSearchQueries: null, efSearchQueryCount: null },
        slots,
      ),
    ).toBe(false);
  });

  it("keeps at most a ring's worth per dataset, and none for a dataset that is gone", async () => {
    const { ctx } = await createTenant(database.db, "ring");
    const dataset = await createDataset(
      ctx,
      { name: "r", dimensions: 8 },
      { embeddingModel: "local/hash" },
    );
    const vector = [1, 0, 0, 0, 0, 0, 0, 0];
    const slotsTaken = async () =>
      (
        await rowsOf<{ slot: number }>(
          sql`SELECT slot FROM search_query_samples WHERE dataset_id = ${dataset.id} ORDER BY slot`,
        )
      ).map((r) => Number(r.slot));
    // The ring fills slot by slot, each sample saying how many were held before it ...
    for (let i = 0; i < QUERY_SAMPLES.slots; i++) {
      expect(await recordQuerySample(database.db, dataset, vector)).toBe(i);
    }
    expect(await slotsTaken()).toEqual(Array.from({ length: QUERY_SAMPLES.slots }, (_, i) => i));
    // ... and a full ring is overwritten in place.
    for (let i = 0; i < 20; i++) {
      expect(await recordQuerySample(database.db, dataset, vector)).toBe(QUERY_SAMPLES.slots);
    }
    expect(await slotsTaken()).toHaveLength(QUERY_SAMPLES.slots);
    // A gap (a ring filled at random before slots were taken in order) is filled first.
    await database.db.execute(
      sql`DELETE FROM search_query_samples WHERE dataset_id = ${dataset.id} AND slot IN (5, 77)`,
    );
    await recordQuerySample(database.db, dataset, vector);
    expect(await slotsTaken()).toContain(5);
    expect(await slotsTaken()).not.toContain(77);
    expect(await slotsTaken()).toHaveLength(QUERY_SAMPLES.slots - 1);
    await expect(
      recordQuerySample(database.db, { id: "ds_gone", dimensions: 8 }, vector),
    ).rejects.toThrow();
  });
});

describe("E2 with a measured ef_search", () => {
  it("runs with the dataset's stored value (or its family's default), never below the candidates, at most 1,000", async () => {
    const { ctx } = await createTenant(database.db, "ef-search");
    const { id } = await createDataset(
      ctx,
      { name: "e", kind: "hybrid", dimensions: 32 },
      { embeddingModel: "local/hash" },
    );
    await growTo(ctx, id, 0, 30);
    const set = (value: number | null) =>
      database.db.execute(sql`UPDATE datasets SET ef_search = ${value} WHERE id = ${id}`);
    const semantic = { query: "comets and tides", alpha: 1 };

    expect(await efSearchOfSearch(ctx, id, semantic)).toBe(EF_SEARCH_DEFAULTS.local);
    await set(377);
    expect(await efSearchOfSearch(ctx, id, semantic)).toBe(377);
    await set(40);
    expect(await efSearchOfSearch(ctx, id, { ...semantic, top_k: 90 })).toBe(90);
    // hybrid: 3 × top_k candidates from the graph
    expect(await efSearchOfSearch(ctx, id, { query: "comets", alpha: 0.5, top_k: 50 })).toBe(150);
    expect(await efSearchOfSearch(ctx, id, { query: "comets", alpha: 0.5, top_k: 5 })).toBe(40);
    await set(5000);
    expect(await efSearchOfSearch(ctx, id, semantic)).toBe(MAX_EF_SEARCH);
  });
});

describe("calibration queries", () => {
  it("are short runs of words from the stored texts, as people search", () => {
    let seed = 1;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const texts = [
      "the comet's tail always points away from the sun because of the solar wind",
      "tides",
      "",
    ];
    const phrases = queryPhrases(texts, random);
    expect(phrases).toHaveLength(2);
    const words = phrases[0]!.split(" ");
    expect(words.length).toBeGreaterThanOrEqual(EF_SEARCH_CALIBRATION.queryWords.min);
    expect(words.length).toBeLessThanOrEqual(EF_SEARCH_CALIBRATION.queryWords.max);
    expect(texts[0]).toContain(phrases[0]);
    expect(phrases[1]).toBe("tides");
  });
});
