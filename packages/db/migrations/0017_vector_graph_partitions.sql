-- Each dataset's graph vectors get a table of their own: `indexed_vectors` becomes a table
-- list-partitioned by `dataset_id`, one partition per dataset, each with a plain HNSW index.
-- Until now every dataset's graph was a partial index on the one table, so every statement on
-- it paid for every dataset in the database: Postgres weighs each index of a table when it
-- plans, opens them all to write, and builds a new one by scanning the whole table. Measured
-- with 1,000 datasets (docs/indexing.md): a one-dataset search planned in 9–10 ms instead of
-- 0.3, a 200-row DELETE took 13–15 ms, and creating a dataset scanned every dataset's vectors
-- while it held off all writes to the table (ShareLock). A statement that names its dataset
-- is now planned over that dataset's partition only, and a new dataset's partition is
-- attached under a lock that neither reads nor writes wait for.
--
-- Names: the partition is `indexed_vectors_<md5 prefix>` (where the partial index used to
-- be), its graph `…_graph`. The old indexes go first, so the names are free.
SELECT quarry_drop_vector_index(id) FROM datasets;
--> statement-breakpoint
ALTER TABLE "indexed_vectors" RENAME TO "indexed_vectors_unpartitioned";
--> statement-breakpoint
CREATE TABLE "indexed_vectors" (
	"row_id" bigint NOT NULL,
	"dataset_id" text NOT NULL,
	"embedding" vector NOT NULL,
	CONSTRAINT "indexed_vectors_dataset_id_row_id_pk" PRIMARY KEY("dataset_id","row_id")
) PARTITION BY LIST ("dataset_id");
--> statement-breakpoint
DROP FUNCTION quarry_create_vector_index(text, integer, integer, integer);
--> statement-breakpoint
DROP FUNCTION quarry_drop_vector_index(text);
--> statement-breakpoint
CREATE FUNCTION quarry_vector_partition_name(dataset_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 'indexed_vectors_' || left(md5(dataset_id), 24);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION quarry_vector_index_name(dataset_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN quarry_vector_partition_name(dataset_id) || '_graph';
--> statement-breakpoint
-- The dataset's partition and its HNSW graph (built with the dataset's `m` and
-- `ef_construction`), whichever of them is missing: a table made ready before it is attached
-- keeps its rows, and its graph is then built over them in one pass.
-- The partition is created on its own and then attached, not created `PARTITION OF`: attaching
-- takes SHARE UPDATE EXCLUSIVE on `indexed_vectors`, which no search, row write or indexer
-- waits for; `PARTITION OF` would take ACCESS EXCLUSIVE until the dataset's transaction ends.
CREATE FUNCTION quarry_create_vector_graph(dataset_id text, dimensions integer, m integer, ef_construction integer) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  partition text := quarry_vector_partition_name(dataset_id);
BEGIN
  EXECUTE format('CREATE TABLE IF NOT EXISTS %I (LIKE indexed_vectors INCLUDING ALL)', partition);
  IF NOT EXISTS (
    SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'indexed_vectors'::regclass AND c.relname = partition
  ) THEN
    EXECUTE format('ALTER TABLE indexed_vectors ATTACH PARTITION %I FOR VALUES IN (%L)',
      partition, dataset_id);
  END IF;
  EXECUTE format(
    'CREATE INDEX IF NOT EXISTS %I ON %I USING hnsw ((%s) %s) WITH (m = %s, ef_construction = %s)',
    quarry_vector_index_name(dataset_id), partition, quarry_vector_expression(dimensions),
    CASE WHEN dimensions <= 2000 THEN 'vector_cosine_ops' ELSE 'halfvec_cosine_ops' END,
    m, ef_construction);
END
$fn$;
--> statement-breakpoint
-- Drops the dataset's partition with its graph. It takes ACCESS EXCLUSIVE on `indexed_vectors`
-- until the transaction ends (as dropping the partial index did): callers drop it last.
CREATE FUNCTION quarry_drop_vector_graph(dataset_id text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('DROP TABLE IF EXISTS %I', quarry_vector_partition_name(dataset_id));
END
$fn$;
--> statement-breakpoint
-- A new partition has no statistics until it is first analyzed, and without them the planner
-- takes `dataset_id = …` to keep 0.5 % of its rows: a search would then rank the whole
-- partition exactly instead of walking its graph. The indexer calls this after it moves rows
-- (packages/core/src/search/vector-backlog.ts), so a graph is searched as one from its first
-- batch on; afterwards autovacuum (or the embedded database's maintenance) keeps them.
CREATE FUNCTION quarry_analyze_new_vector_graph(dataset_id text) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
  partition text := quarry_vector_partition_name(dataset_id);
BEGIN
  IF to_regclass(quote_ident(partition)) IS NULL OR EXISTS (
    SELECT 1 FROM pg_stats s
    WHERE s.schemaname = current_schema() AND s.tablename = partition AND s.attname = 'dataset_id'
  ) THEN
    RETURN false;
  END IF;
  EXECUTE format('ANALYZE %I', partition);
  RETURN true;
END
$fn$;
--> statement-breakpoint
-- Every dataset's partition, filled from the old table, its graph built once over the copy
-- (a bulk build; growing it row by row costs ~10× more). Vectors of a dataset that no longer
-- exists were orphans: they are not carried over.
DO $do$
DECLARE d record;
BEGIN
  FOR d IN SELECT id, dimensions, graph_m, graph_ef_construction FROM datasets LOOP
    EXECUTE format('CREATE TABLE %I (LIKE indexed_vectors INCLUDING ALL)',
      quarry_vector_partition_name(d.id));
    EXECUTE format(
      'INSERT INTO %I (row_id, dataset_id, embedding)
       SELECT row_id, dataset_id, embedding FROM indexed_vectors_unpartitioned WHERE dataset_id = $1',
      quarry_vector_partition_name(d.id)) USING d.id;
    PERFORM quarry_create_vector_graph(d.id, d.dimensions, d.graph_m, d.graph_ef_construction);
    PERFORM quarry_analyze_new_vector_graph(d.id);
  END LOOP;
END
$do$;
--> statement-breakpoint
DROP TABLE "indexed_vectors_unpartitioned";
--> statement-breakpoint
-- Takes rows out of one dataset's graph. A statement on `indexed_vectors` that names no
-- dataset, or names it only as a plan-time unknown (a static statement in a function keeps a
-- generic plan), is planned over every partition and locks each of them, every time. This
-- one is planned for each call with the dataset known, and so pruned to its partition.
CREATE FUNCTION quarry_unindex_rows(dataset_id text, row_ids bigint[]) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE 'DELETE FROM indexed_vectors WHERE dataset_id = $1 AND row_id = ANY ($2)'
    USING dataset_id, row_ids;
END
$fn$;
--> statement-breakpoint
-- As in migration `backlog_embeddings`, except how rows leave the graph: one
-- `quarry_unindex_rows` per dataset the statement touched (a statement on `rows` nearly
-- always writes one dataset).
CREATE OR REPLACE FUNCTION quarry_row_vectors_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_backlog (dataset_id, row_id, embedding)
    SELECT n.dataset_id, n.id, n.embedding FROM quarry_new_rows n WHERE n.embedding IS NOT NULL;
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    PERFORM quarry_unindex_rows(o.dataset_id, array_agg(o.id))
    FROM quarry_old_rows o GROUP BY o.dataset_id;
    DELETE FROM vector_backlog b USING quarry_old_rows o
    WHERE b.dataset_id = o.dataset_id AND b.row_id = o.id;
    RETURN NULL;
  END IF;
  INSERT INTO vector_backlog AS b (dataset_id, row_id, embedding)
  SELECT n.dataset_id, n.id, n.embedding
  FROM quarry_new_rows n JOIN quarry_old_rows o ON o.id = n.id
  WHERE n.embedding IS NOT NULL
    AND (o.embedding IS DISTINCT FROM n.embedding OR o.dataset_id <> n.dataset_id)
  ORDER BY 1, 2
  ON CONFLICT (dataset_id, row_id) DO UPDATE SET embedding = excluded.embedding;
  DELETE FROM vector_backlog b
  USING quarry_old_rows o JOIN quarry_new_rows n ON n.id = o.id
  WHERE b.dataset_id = o.dataset_id AND b.row_id = o.id
    AND (n.embedding IS NULL OR o.dataset_id <> n.dataset_id);
  PERFORM quarry_unindex_rows(o.dataset_id, array_agg(o.id))
  FROM quarry_old_rows o JOIN quarry_new_rows n ON n.id = o.id
  WHERE o.embedding IS DISTINCT FROM n.embedding OR o.dataset_id <> n.dataset_id
  GROUP BY o.dataset_id;
  RETURN NULL;
END
$fn$;
