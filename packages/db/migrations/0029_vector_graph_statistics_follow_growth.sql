-- A dataset's partition of `indexed_vectors` is analyzed again when its statistics no longer
-- describe it, not only when it has none. The indexer calls this after each message that moved
-- vectors in (core search/vector-backlog.ts). Its first statistics were usually taken over a
-- handful of vectors (a dataset's first paragraph: one), which make every column look unique
-- (`n_distinct = -1`), so `dataset_id = …`, the partition's one value, was estimated to keep one
-- row at any size. Native autovacuum analyzes again soon; the embedded database's maintenance
-- waits for a quiet moment, which a graph catching up on a large upload never leaves (PGlite,
-- `pnpm bench ingest`: statistics of one row at 18,869 vectors). Planned for one row, the count
-- of a bulk build's vectors that `GET /api/datasets/{id}` makes read the whole partition through
-- its key (24 ms and 3,478 pages at 18,869 vectors, the graph's state as much again) instead of
-- the generation index.
--
-- Analyzed again when `dataset_id` does not have its one distinct value in the statistics, or
-- the partition has more than twice the pages (and 32 more) than the statistics counted: a few
-- samples (of at most 30,000 rows each) over a partition's life. Pages are the relation's size,
-- exact at once on both engines; the statistics collector's row counts reach PGlite's one
-- session late. A VACUUM also records the pages, which only puts the next analysis off.
-- The name stays (core calls it), for what it still does first: a new graph's statistics.
CREATE OR REPLACE FUNCTION quarry_analyze_new_vector_graph(dataset_id text) RETURNS boolean
LANGUAGE plpgsql AS $fn$
DECLARE
  partition regclass := to_regclass(quote_ident(quarry_vector_partition_name(dataset_id)));
  analyzed_pages integer;
BEGIN
  IF partition IS NULL THEN
    RETURN false;
  END IF;
  SELECT CASE WHEN c.reltuples < 0 THEN NULL ELSE c.relpages END INTO analyzed_pages
  FROM pg_class c WHERE c.oid = partition;
  IF analyzed_pages IS NOT NULL
     AND EXISTS (
       SELECT 1 FROM pg_stats s
       WHERE s.schemaname = current_schema()
         AND s.tablename = quarry_vector_partition_name(dataset_id)
         AND s.attname = 'dataset_id' AND s.n_distinct = 1)
     AND pg_relation_size(partition) / current_setting('block_size')::int
         <= 2 * analyzed_pages + 32 THEN
    RETURN false;
  END IF;
  -- Skipped while another session holds the partition (a bulk build's CREATE INDEX
  -- CONCURRENTLY, another analysis): an indexer never waits minutes for statistics.
  EXECUTE format('ANALYZE (SKIP_LOCKED) %s', partition);
  RETURN true;
END
$fn$;
