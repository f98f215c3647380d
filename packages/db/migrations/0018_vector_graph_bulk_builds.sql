-- A large backlog is moved into its dataset's partition without a graph, and the graph is then
-- built over the partition in one pass (`CREATE INDEX CONCURRENTLY`), instead of growing it a
-- row at a time: ~0.5 ms a row against ~4 ms (100k rows, 384 dimensions, a 2-core machine).
-- The statements that do it cannot run in a function (nor in any transaction): these functions
-- only write them, so the partition's and the graph's names stay here (docs/indexing.md,
-- packages/core/src/search/vector-graph-builds.ts). Deleting a dataset cancels its build.
--
-- The statement that builds a dataset's graph over its partition: plain when a dataset is
-- created (its partition is new and empty), CONCURRENTLY for a bulk build, during which the
-- dataset's searches, writes and indexers go on (SHARE UPDATE EXCLUSIVE on the partition).
CREATE FUNCTION quarry_vector_graph_index_sql(dataset_id text, dimensions integer, m integer, ef_construction integer, concurrent boolean) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN format(
  'CREATE INDEX %s IF NOT EXISTS %I ON %I USING hnsw ((%s) %s) WITH (m = %s, ef_construction = %s)',
  CASE WHEN concurrent THEN 'CONCURRENTLY' ELSE '' END,
  quarry_vector_index_name(dataset_id), quarry_vector_partition_name(dataset_id),
  quarry_vector_expression(dimensions),
  CASE WHEN dimensions <= 2000 THEN 'vector_cosine_ops' ELSE 'halfvec_cosine_ops' END,
  m, ef_construction);
--> statement-breakpoint
-- As in `0017`, with the graph's statement from the function above.
CREATE OR REPLACE FUNCTION quarry_create_vector_graph(dataset_id text, dimensions integer, m integer, ef_construction integer) RETURNS void
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
  EXECUTE quarry_vector_graph_index_sql(dataset_id, dimensions, m, ef_construction, false);
END
$fn$;
--> statement-breakpoint
-- A dataset's graph as a bulk build sees it, with the statements that drop, build and analyze
-- it. `graph` is
--   'valid'    the graph serves searches (the usual case);
--   'building' a CREATE INDEX is under way on the partition (another indexer's bulk build);
--   'invalid'  a build that did not finish (its session ended): drop it and build again;
--   'missing'  dropped for a bulk build that did not get to build it: build it.
-- While the graph is not valid, searches rank the partition's rows exactly, as they rank the
-- backlog's. No row when the dataset does not exist.
CREATE FUNCTION quarry_vector_graph_state(dataset_id text)
RETURNS TABLE (graph text, build_sql text, drop_sql text, analyze_sql text)
LANGUAGE sql STABLE AS $fn$
  SELECT
    CASE
      WHEN EXISTS (
        SELECT 1 FROM pg_stat_progress_create_index p
        WHERE p.relid = to_regclass(quote_ident(quarry_vector_partition_name(d.id)))
      ) THEN 'building'
      WHEN i.indexrelid IS NULL THEN 'missing'
      WHEN i.indisvalid THEN 'valid'
      ELSE 'invalid'
    END,
    quarry_vector_graph_index_sql(d.id, d.dimensions, d.graph_m, d.graph_ef_construction, true),
    format('DROP INDEX CONCURRENTLY IF EXISTS %I', quarry_vector_index_name(d.id)),
    format('ANALYZE %I', quarry_vector_partition_name(d.id))
  FROM datasets d
  LEFT JOIN pg_index i ON i.indexrelid = to_regclass(quote_ident(quarry_vector_index_name(d.id)))
  WHERE d.id = quarry_vector_graph_state.dataset_id
$fn$;
--> statement-breakpoint
-- As in `0017`, but a bulk build of the graph under way is cancelled first. Dropping the
-- partition needs ACCESS EXCLUSIVE on it, which the build (`CREATE INDEX CONCURRENTLY`) holds
-- off until it ends — a minute or more — while it may itself wait for this transaction (it
-- waits for older snapshots before it finishes). Cancelled, the build leaves an invalid index,
-- which goes with the table; its indexer finds the dataset gone.
CREATE OR REPLACE FUNCTION quarry_drop_vector_graph(dataset_id text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  partition regclass := to_regclass(quote_ident(quarry_vector_partition_name(dataset_id)));
BEGIN
  IF partition IS NULL THEN
    RETURN;
  END IF;
  PERFORM pg_cancel_backend(p.pid) FROM pg_stat_progress_create_index p
  WHERE p.relid = partition AND p.pid <> pg_backend_pid();
  EXECUTE format('DROP TABLE %s', partition);
END
$fn$;
