import { describe, expect, it } from "vitest";
import {
  createDataset,
  deleteDataset,
  indexVectorBacklog,
  searchRows,
  upsertRows,
  VECTOR_GRAPH_DEFAULTS,
} from "../src/index.ts";
import { SEARCH_TEXTS as TEXTS } from "./fixtures/search-texts.ts";
import { checkInvariants } from "./support/invariants.ts";
import { noFiles } from "./support/no-files.ts";
import { migrationText, partlyMigratedDatabase } from "./support/partly-migrated-database.ts";
import { createTenant } from "./support/tenant.ts";

/**
 * Migration `0017_vector_graph_partitions` rebuilds `indexed_vectors` as a table partitioned by
 * dataset. A database that ran 0016 holds graph vectors, backlog entries and partial indexes:
 * after the upgrade every dataset must have its own partition and graph holding exactly the
 * vectors it had, searches must answer as before, and the indexer and the dataset lifecycle
 * must carry on.
 */

interface Graph {
  dataset_id: string;
  attached: boolean;
  graph: string | null;
  vectors: number;
  analyzed: boolean;
}

describe("migration 0017 on a database with graph vectors", () => {
  it("gives every dataset its partition and graph with its vectors, and searches answer as before", async () => {
    const old = await partlyMigratedDatabase("0016_postings_cover_frequency");
    try {
      // Datasets are created as 0016 created them (a partial index on `indexed_vectors`),
      // under the name today's code calls.
      await old.sql(`CREATE FUNCTION quarry_create_vector_graph(d text, n integer, e text, m integer, ef integer)
        RETURNS void LANGUAGE sql AS $$ SELECT quarry_create_vector_index(d, n, m, ef) $$`);
      // Today's code also writes columns of 0019's and 0020's; they go again before the upgrade.
      await old.sql("ALTER TABLE datasets ADD COLUMN ef_search_queries text");
      await old.sql("ALTER TABLE datasets ADD COLUMN ef_search_query_count integer");
      // And of 0027's (graph generations): every vector in the one graph, generation 0.
      await old.sql("ALTER TABLE datasets ADD COLUMN graph_generation integer NOT NULL DEFAULT 0");
      await old.sql(
        "ALTER TABLE indexed_vectors ADD COLUMN graph_generation integer NOT NULL DEFAULT 0",
      );
      // And of 0030's (graph encodings): full precision, as 0016 built graphs.
      await old.sql(
        "ALTER TABLE datasets ADD COLUMN graph_encoding text NOT NULL DEFAULT 'vector'",
      );
      // And 0032's function, which its searches rank the backlog with.
      await old.sql(migrationText("0032_nearest_waiting_rows"));
      const { ctx } = await createTenant(old.db, "upgrade");
      const model = { embeddingModel: "local/hash", graph: { encoding: "vector" as const } };
      const indexed = await createDataset(ctx, { name: "indexed" }, model);
      const empty = await createDataset(ctx, { name: "empty" }, model);
      await upsertRows(ctx, indexed.id, {
        document_id: "d",
        rows: TEXTS.map((text) => ({ data: { text } })),
      });
      // 0016's indexer moved rows so: half of them are in the graph, half still wait.
      await old.sql(
        `WITH moved AS (
           DELETE FROM vector_backlog WHERE dataset_id = $1 AND row_id IN (
             SELECT row_id FROM vector_backlog WHERE dataset_id = $1 ORDER BY row_id LIMIT 4)
           RETURNING row_id, embedding)
         INSERT INTO indexed_vectors (row_id, dataset_id, embedding)
         SELECT row_id, $1, embedding FROM moved`,
        [indexed.id],
      );
      // A graph vector whose dataset no longer exists.
      await old.sql(`INSERT INTO indexed_vectors (row_id, dataset_id, embedding)
        SELECT 999999999, 'ds_gone', embedding FROM indexed_vectors LIMIT 1`);
      const query = { query: "a comet in the night sky", top_k: 6 };
      const before = await searchRows(ctx, indexed.id, query);
      expect(before.results).toHaveLength(6);
      await old.sql(
        "DROP FUNCTION quarry_create_vector_graph(text, integer, text, integer, integer)",
      );
      await old.sql("DROP FUNCTION quarry_nearest_waiting_rows(text, vector, integer)");
      await old.sql("ALTER TABLE datasets DROP COLUMN graph_encoding");

      await old.sql("ALTER TABLE datasets DROP COLUMN ef_search_queries");
      await old.sql("ALTER TABLE datasets DROP COLUMN ef_search_query_count");
      await old.sql("ALTER TABLE datasets DROP COLUMN graph_generation");
      await old.migrateRest();

      const graphs = await old.sql<Graph>(
        `SELECT d.id AS dataset_id,
                EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                        WHERE i.inhparent = 'indexed_vectors'::regclass
                          AND c.relname = quarry_vector_partition_name(d.id)) AS attached,
                (SELECT indexdef FROM pg_indexes
                 WHERE tablename = quarry_vector_partition_name(d.id)
                   AND indexname = quarry_vector_index_name(d.id)) AS graph,
                (SELECT count(*) FROM indexed_vectors v WHERE v.dataset_id = d.id)::int AS vectors,
                EXISTS (SELECT 1 FROM pg_stats s WHERE s.tablename = quarry_vector_partition_name(d.id)
                        AND s.attname = 'dataset_id') AS analyzed
         FROM datasets d ORDER BY d.name DESC`,
      );
      expect(graphs).toEqual([
        {
          dataset_id: indexed.id,
          attached: true,
          graph: expect.stringMatching(
            new RegExp(
              `USING hnsw .*vector\\(384\\).*m='?${VECTOR_GRAPH_DEFAULTS.local.m}'?.*ef_construction='?${VECTOR_GRAPH_DEFAULTS.local.efConstruction}'`,
            ),
          ),
          vectors: 4,
          analyzed: true,
        },
        {
          dataset_id: empty.id,
          attached: true,
          graph: expect.any(String),
          vectors: 0,
          analyzed: false,
        },
      ]);
      const [table] = await old.sql<{ kind: string; vectors: number; leftover: string | null }>(
        `SELECT (SELECT relkind::text FROM pg_class WHERE relname = 'indexed_vectors') AS kind,
                (SELECT count(*) FROM indexed_vectors)::int AS vectors,
                to_regclass('indexed_vectors_unpartitioned')::text AS leftover`,
      );
      // Partitioned; the orphan was not carried over; the old table is gone.
      expect(table).toEqual({ kind: "p", vectors: 4, leftover: null });
      expect(await checkInvariants(old)).toEqual([]);

      expect(await searchRows(ctx, indexed.id, query)).toEqual(before);
      expect(await indexVectorBacklog(old.db, indexed.id, 100)).toEqual({ indexed: 4, pending: 0 });
      expect(await searchRows(ctx, indexed.id, query)).toEqual(before);
      expect(await checkInvariants(old)).toEqual([]);

      // Datasets come and go with today's functions.
      const created = await createDataset(ctx, { name: "after" }, model);
      await upsertRows(ctx, created.id, {
        document_id: "d",
        rows: [{ data: { text: TEXTS[0]! } }],
      });
      expect(await indexVectorBacklog(old.db, created.id, 10)).toEqual({ indexed: 1, pending: 0 });
      await deleteDataset(ctx, empty.id, noFiles);
      await deleteDataset(ctx, created.id, noFiles);
      const [left] = await old.sql<{ partitions: number }>(
        `SELECT count(*)::int AS partitions FROM pg_inherits WHERE inhparent = 'indexed_vectors'::regclass`,
      );
      expect(left?.partitions).toBe(1);
      expect(await checkInvariants(old)).toEqual([]);
    } finally {
      await old.close();
    }
  });
});
