ALTER TABLE "datasets" ADD COLUMN "graph_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "indexed_vectors" ADD COLUMN "graph_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "indexed_vectors_graph_generation_idx" ON "indexed_vectors" USING btree ("graph_generation");--> statement-breakpoint
-- A bulk build keeps the dataset's graph serving until the next one is valid. Until now it
-- dropped the graph first (so that moving the backlog in did not grow it a row at a time, ~4 ms a
-- row) and every search ranked the dataset's whole partition exactly until the new graph was
-- built: minutes of searches 10× slower at 100k rows, longer at a million. Now each graph is a
-- partial index over the partition's vectors of its generation or older, the build moves the
-- backlog in as the next generation (which the serving graph does not take), builds the next
-- graph beside the serving one, and then serves it (`quarry_serve_vector_graph`). Searches walk
-- the graph of `datasets.graph_generation` and rank the newer vectors exactly, as they rank the
-- backlog (docs/indexing.md, packages/core/src/search/vector-graph-builds.ts).
--
-- A dataset's graph of generation g: `<partition>_graph_<g>`. The graphs built before
-- generations (`<partition>_graph`, `quarry_vector_index_name`) take every vector of their
-- partition: they serve generation 0, and their dataset's first bulk build drops them first, as
-- builds did until now.
CREATE FUNCTION quarry_vector_graph_name(dataset_id text, generation integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN quarry_vector_partition_name(dataset_id) || '_graph_' || generation;
--> statement-breakpoint
-- The graph that serves a dataset's searches (its index), null when it has none (a build under
-- code older than generations dropped it) or the dataset is gone.
CREATE FUNCTION quarry_serving_vector_graph(dataset_id text) RETURNS regclass
LANGUAGE sql STABLE
RETURN (
  SELECT coalesce(
    to_regclass(quote_ident(quarry_vector_graph_name(d.id, d.graph_generation))),
    CASE WHEN d.graph_generation = 0 THEN to_regclass(quote_ident(quarry_vector_index_name(d.id))) END)
  FROM datasets d WHERE d.id = quarry_serving_vector_graph.dataset_id);
--> statement-breakpoint
DROP FUNCTION quarry_vector_graph_state(text);
--> statement-breakpoint
DROP FUNCTION quarry_vector_graph_index_sql(text, integer, integer, integer, boolean);
--> statement-breakpoint
-- The statement that builds a dataset's graph of a generation: plain when a dataset is created
-- (its partition is new and empty), CONCURRENTLY for a bulk build, during which the dataset's
-- searches, writes and indexers go on (SHARE UPDATE EXCLUSIVE on the partition).
CREATE FUNCTION quarry_vector_graph_index_sql(dataset_id text, dimensions integer, m integer, ef_construction integer, concurrent boolean, generation integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN format(
  'CREATE INDEX %s IF NOT EXISTS %I ON %I USING hnsw ((%s) %s) WITH (m = %s, ef_construction = %s) WHERE graph_generation <= %s',
  CASE WHEN concurrent THEN 'CONCURRENTLY' ELSE '' END,
  quarry_vector_graph_name(dataset_id, generation), quarry_vector_partition_name(dataset_id),
  quarry_vector_expression(dimensions),
  CASE WHEN dimensions <= 2000 THEN 'vector_cosine_ops' ELSE 'halfvec_cosine_ops' END,
  m, ef_construction, generation);
--> statement-breakpoint
-- As in `0018`, with the graph of generation 0 (a new dataset's `graph_generation`).
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
  EXECUTE quarry_vector_graph_index_sql(dataset_id, dimensions, m, ef_construction, false, 0);
END
$fn$;
--> statement-breakpoint
-- A dataset's graphs as an indexer sees them, with the statements that build, drop and
-- analyze them. No row when the dataset does not exist.
--   generation   the serving generation (`datasets.graph_generation`);
--   graph        the serving graph: 'valid' (the usual case), 'invalid' or 'missing' (a build
--                that did not finish, under code older than generations);
--   legacy       the serving graph predates generations: it would take the next generation's
--                vectors too, so a bulk build drops it first;
--   next_graph   the graph of the next generation: 'building' while a CREATE INDEX runs on the
--                partition, 'valid' (built, not serving yet), 'invalid' (its build's session
--                ended), 'missing';
--   next_rows    whether vectors of a newer generation than the serving one wait in the
--                partition (a bulk build's, under way or cut short), searched exactly;
--   drop_stale_sql  the statements that drop the partition's other graphs: older ones that a
--                build cut short after serving its own left behind.
CREATE FUNCTION quarry_vector_graph_state(dataset_id text)
RETURNS TABLE (generation integer, graph text, legacy boolean, next_graph text, next_rows boolean,
               build_sql text, drop_serving_sql text, drop_next_sql text, drop_stale_sql text[],
               analyze_sql text)
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  d datasets;
  partition regclass;
  serving regclass;
  next regclass;
  is_legacy boolean;
  building boolean;
BEGIN
  SELECT * INTO d FROM datasets WHERE id = quarry_vector_graph_state.dataset_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  partition := to_regclass(quote_ident(quarry_vector_partition_name(d.id)));
  serving := quarry_serving_vector_graph(d.id);
  is_legacy := serving = to_regclass(quote_ident(quarry_vector_index_name(d.id)));
  next := to_regclass(quote_ident(quarry_vector_graph_name(d.id, d.graph_generation + 1)));
  building := EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.relid = partition);
  generation := d.graph_generation;
  graph := CASE
    WHEN serving IS NULL THEN 'missing'
    WHEN (SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = serving) THEN 'valid'
    ELSE 'invalid'
  END;
  legacy := coalesce(is_legacy, false);
  next_graph := CASE
    WHEN building THEN 'building'
    WHEN next IS NULL THEN 'missing'
    WHEN (SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = next) THEN 'valid'
    ELSE 'invalid'
  END;
  -- Planned for the dataset, so pruned to its partition (see `quarry_unindex_rows`, 0017).
  EXECUTE 'SELECT EXISTS (SELECT 1 FROM indexed_vectors
                          WHERE dataset_id = $1 AND graph_generation > $2)'
    INTO next_rows USING d.id, d.graph_generation;
  build_sql := quarry_vector_graph_index_sql(d.id, d.dimensions, d.graph_m,
    d.graph_ef_construction, true, d.graph_generation + 1);
  drop_serving_sql := CASE WHEN serving IS NOT NULL
    THEN format('DROP INDEX CONCURRENTLY IF EXISTS %s', serving) END;
  drop_next_sql := format('DROP INDEX CONCURRENTLY IF EXISTS %I',
    quarry_vector_graph_name(d.id, d.graph_generation + 1));
  SELECT coalesce(array_agg(format('DROP INDEX CONCURRENTLY IF EXISTS %s', i.indexrelid::regclass)),
                  '{}')
  INTO drop_stale_sql
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
  WHERE i.indrelid = partition AND a.amname = 'hnsw'
    AND i.indexrelid IS DISTINCT FROM serving AND i.indexrelid IS DISTINCT FROM next;
  analyze_sql := format('ANALYZE %I', quarry_vector_partition_name(d.id));
  RETURN NEXT;
END
$fn$;
--> statement-breakpoint
-- Serves a dataset's graph of `generation` once it is valid: from the next statement on, its
-- searches walk it and rank only newer vectors exactly. Returns whether it did (false while the
-- graph is not valid yet, when the dataset already serves that generation or a newer one, or
-- when the dataset is gone). Updates only `graph_generation` (`FOR NO KEY UPDATE`: writers'
-- `FOR KEY SHARE` on the dataset does not wait for it). The graph it replaces is dropped by the
-- caller afterwards, concurrently, which waits for the searches still walking it.
CREATE FUNCTION quarry_serve_vector_graph(dataset_id text, generation integer) RETURNS boolean
LANGUAGE sql AS $fn$
  WITH served AS (
    UPDATE datasets d SET graph_generation = quarry_serve_vector_graph.generation
    WHERE d.id = quarry_serve_vector_graph.dataset_id
      AND d.graph_generation < quarry_serve_vector_graph.generation
      AND EXISTS (
        SELECT 1 FROM pg_index i
        WHERE i.indexrelid = to_regclass(quote_ident(quarry_vector_graph_name(
                quarry_serve_vector_graph.dataset_id, quarry_serve_vector_graph.generation)))
          AND i.indisvalid)
    RETURNING 1)
  SELECT EXISTS (SELECT 1 FROM served)
$fn$;
