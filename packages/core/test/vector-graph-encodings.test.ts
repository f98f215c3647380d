import { LocalHashEmbedder } from "@quarry/providers";
import { describe, expect, it } from "vitest";
import {
  createDataset,
  type DatasetRecord,
  indexVectorBacklog,
  SemanticSearch,
  searchRows,
  upsertRows,
} from "../src/index.ts";
import { SEARCH_TEXTS as TEXTS } from "./fixtures/search-texts.ts";
import { checkInvariants } from "./support/invariants.ts";
import {
  migrationText,
  type PartlyMigratedDatabase,
  partlyMigratedDatabase,
} from "./support/partly-migrated-database.ts";
import { planWithoutScans } from "./support/plan-text.ts";
import { createTenant } from "./support/tenant.ts";

/**
 * Migration `0030_vector_graph_encodings` records how each dataset's graphs hold its vectors.
 * The datasets that exist keep the expression their graphs were built on — full precision up
 * to 2,000 dimensions, `embedding::halfvec(n)` above — so that their searches still walk them
 * and their next bulk build builds the same; new datasets get half precision over the unit
 * vector.
 */
describe("migration 0030 on a database with graphs", () => {
  it("keeps each dataset's graph expression, which its searches walk and its builds repeat", async () => {
    const old = await partlyMigratedDatabase("0029_vector_graph_statistics_follow_growth");
    try {
      // Datasets are created as 0029 created them, under the signature today's code calls, and
      // with the column today's code writes, which goes again before the upgrade.
      await old.sql(
        "ALTER TABLE datasets ADD COLUMN graph_encoding text NOT NULL DEFAULT 'vector'",
      );
      await old.sql(`CREATE FUNCTION quarry_create_vector_graph(d text, n integer, e text, m integer, ef integer)
        RETURNS void LANGUAGE sql AS $$ SELECT quarry_create_vector_graph(d, n, m, ef) $$`);
      // And 0032's function, which its searches rank the backlog with.
      await old.sql(migrationText("0032_nearest_waiting_rows"));
      const { ctx } = await createTenant(old.db, "encodings");
      const model = { embeddingModel: "local/hash", graph: { encoding: "vector" as const } };
      const narrow = await createDataset(ctx, { name: "narrow" }, model);
      const wide = await createDataset(ctx, { name: "wide", dimensions: 2048 }, model);
      for (const dataset of [narrow, wide]) {
        await upsertRows(ctx, dataset.id, {
          document_id: "d",
          rows: TEXTS.map((text) => ({ data: { text } })),
        });
        await indexVectorBacklog(old.db, dataset.id, 1000);
      }
      const query = { query: "a comet in the night sky", top_k: 5 };
      const before = [
        await searchRows(ctx, narrow.id, query),
        await searchRows(ctx, wide.id, query),
      ];
      await old.sql(
        "DROP FUNCTION quarry_create_vector_graph(text, integer, text, integer, integer)",
      );
      await old.sql("DROP FUNCTION quarry_nearest_waiting_rows(text, vector, integer)");
      await old.sql("ALTER TABLE datasets DROP COLUMN graph_encoding");
      await old.migrateRest();

      const after = await createDataset(ctx, { name: "after" }, { embeddingModel: "local/hash" });
      await upsertRows(ctx, after.id, {
        document_id: "d",
        rows: TEXTS.map((text) => ({ data: { text } })),
      });
      await indexVectorBacklog(old.db, after.id, 1000);

      const graphs = await old.sql<{
        name: string;
        encoding: string;
        graph: string;
        build: string;
      }>(
        `SELECT d.name, d.graph_encoding AS encoding,
                pg_get_indexdef(quarry_serving_vector_graph(d.id)) AS graph,
                (SELECT s.build_sql FROM quarry_vector_graph_state(d.id) s) AS build
         FROM datasets d ORDER BY d.name`,
      );
      expect(graphs).toEqual([
        {
          name: "after",
          encoding: "halfvec",
          graph: expect.stringContaining(
            "((l2_normalize((embedding)::vector(384)))::halfvec(384)) halfvec_cosine_ops",
          ),
          build: expect.stringContaining(
            "((l2_normalize(embedding::vector(384))::halfvec(384)) halfvec_cosine_ops)",
          ),
        },
        {
          name: "narrow",
          encoding: "vector",
          graph: expect.stringContaining("(((embedding)::vector(384)) vector_cosine_ops)"),
          build: expect.stringContaining("((embedding::vector(384)) vector_cosine_ops)"),
        },
        {
          name: "wide",
          encoding: "halfvec_unnormalized",
          graph: expect.stringContaining("(((embedding)::halfvec(2048)) halfvec_cosine_ops)"),
          build: expect.stringContaining("((embedding::halfvec(2048)) halfvec_cosine_ops)"),
        },
      ]);

      expect([
        await searchRows(ctx, narrow.id, query),
        await searchRows(ctx, wide.id, query),
      ]).toEqual(before);
      for (const dataset of [narrow, wide, after]) {
        expect(await graphWalkedBy(old, dataset.id)).toBe(true);
      }
      expect(await checkInvariants(old)).toEqual([]);
      // A full-precision graph cannot index more than 2,000 dimensions.
      await expect(
        old.sql("UPDATE datasets SET graph_encoding = 'vector' WHERE id = $1", [wide.id]),
      ).rejects.toThrow(/datasets_graph_encoding_check/);
      await expect(
        old.sql("UPDATE datasets SET graph_encoding = 'float8' WHERE id = $1", [narrow.id]),
      ).rejects.toThrow(/datasets_graph_encoding_check/);
    } finally {
      await old.close();
    }
  });
});

/**
 * Whether E2's statement for the dataset, as core renders it from the stored dataset, walks
 * the dataset's serving graph (`planWithoutScans`).
 */
async function graphWalkedBy(old: PartlyMigratedDatabase, datasetId: string): Promise<boolean> {
  const [dataset] = await old.sql<
    Pick<
      DatasetRecord,
      "id" | "dimensions" | "embeddingModel" | "graphGeneration" | "graphEncoding"
    >
  >(
    `SELECT id, dimensions, embedding_model AS "embeddingModel",
            graph_generation AS "graphGeneration", graph_encoding AS "graphEncoding"
     FROM datasets WHERE id = $1`,
    [datasetId],
  );
  if (!dataset) throw new Error(`no dataset ${datasetId}`);
  const [vector] = await new LocalHashEmbedder(dataset.dimensions).embed(["comet"]);
  const search = new SemanticSearch({ ...dataset, efSearch: null }, vector!, undefined);
  const [serving] = await old.sql<{ name: string }>(
    "SELECT quarry_serving_vector_graph($1)::text AS name",
    [datasetId],
  );
  const plan = await planWithoutScans(old.db, search.rankSql(5));
  return plan.includes(`Index Scan using ${serving?.name}`);
}
