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
  MAX_EF_SEARCH,
  type ProjectContext,
  queryPhrases,
  type RowSearchInput,
  requireDataset,
  SemanticSearch,
  searchRows,
  upsertRows,
  VECTOR_GRAPH_DEFAULTS,
} from "../src/index.ts";
import { useFreshDatabase } from "./support/database.ts";
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

describe("ef_search calibration", () => {
  it("measures a graph of 1,000+ vectors, stores the list size reaching the target recall, and waits for it to double", async () => {
    const { ctx } = await createTenant(database.db, "calibrate");
    const { id } = await createDataset(ctx, { name: "c" }, { embeddingModel: "local/hash" });

    await growTo(ctx, id, 0, 900);
    expect(await calibrateEfSearch(ctx, id)).toEqual({
      measured: false,
      reason: "not_due",
      rows: 900,
    });
    expect((await getDataset(ctx, id)).vector_index).toEqual({
      pending_rows: 0,
      graph: "valid",
      ef_search: EF_SEARCH_DEFAULTS.local,
      recall_at_10: null,
      measured_rows: null,
      m: VECTOR_GRAPH_DEFAULTS.local.m,
      ef_construction: VECTOR_GRAPH_DEFAULTS.local.efConstruction,
    });

    await growTo(ctx, id, 900, 2000);
    const first = await calibrateEfSearch(ctx, id);
    if (!first.measured) throw new Error(`not measured: ${first.reason}`);
    expect(first).toMatchObject({
      rows: 2000,
      queries: EF_SEARCH_CALIBRATION.queries,
      stored: true,
    });
    expect(EF_SEARCH_CALIBRATION.ladder).toContain(first.efSearch);
    expect(first.efSearch).toBeLessThanOrEqual(MAX_EF_SEARCH);
    if (first.efSearch < MAX_EF_SEARCH) {
      expect(first.recall).toBeGreaterThanOrEqual(EF_SEARCH_CALIBRATION.targetRecall);
    }
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
      ef_search: first.efSearch,
      recall_at_10: first.recall,
      measured_rows: 2000,
      m: VECTOR_GRAPH_DEFAULTS.local.m,
      ef_construction: VECTOR_GRAPH_DEFAULTS.local.efConstruction,
    });
    // What the stored size gives searches, by queries and an exact ranking of our own.
    expect(await independentRecall(ctx, id, 20)).toBeGreaterThanOrEqual(0.93);

    expect(await calibrateEfSearch(ctx, id)).toMatchObject({ measured: false, reason: "not_due" });
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
