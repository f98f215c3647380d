ALTER TABLE "datasets" ADD COLUMN "graph_encoding" text DEFAULT 'vector' NOT NULL;--> statement-breakpoint
-- How each dataset's graphs hold its vectors (packages/db/src/schema/datasets.ts,
-- `VectorGraphEncoding`), chosen when it is created. Half precision halves what a graph walk
-- reads and what each distance costs: on the search benchmark's 100k vectors (native, m 24,
-- ef_construction 256, 200 queries), 6.1–6.3 ms a query at ef_search 250 and recall@10 0.980,
-- against 7.2–7.5 ms and 0.975 at full precision, and an index of 116 MB against 195
-- (docs/benchmarks.md). Over the unit vector, because cosine distance ignores length and half
-- precision holds nothing beyond ±65,504: a caller's vector of larger components would fail
-- its graph insert. Searches rank the graph's candidates by their exact distance, computed in
-- full precision from the stored embedding (core search/semantic-ranking.ts).
--
-- The datasets that exist keep the expression their graphs were built on: `vector` up to 2,000
-- dimensions (HNSW's limit for it), `halfvec_unnormalized` above.
UPDATE "datasets" SET "graph_encoding" = 'halfvec_unnormalized' WHERE "dimensions" > 2000;
--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_graph_encoding_check"
  CHECK ("graph_encoding" IN ('vector', 'halfvec', 'halfvec_unnormalized')
         AND ("graph_encoding" <> 'vector' OR "dimensions" <= 2000));
--> statement-breakpoint
-- The indexed expression of a dataset's graphs, and their operator class.
CREATE FUNCTION quarry_vector_graph_expression(dimensions integer, encoding text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE encoding
  WHEN 'vector' THEN format('embedding::vector(%s)', dimensions)
  WHEN 'halfvec' THEN format('l2_normalize(embedding::vector(%s))::halfvec(%s)', dimensions, dimensions)
  WHEN 'halfvec_unnormalized' THEN format('embedding::halfvec(%s)', dimensions)
END;
--> statement-breakpoint
CREATE FUNCTION quarry_vector_graph_operators(encoding text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN encoding = 'vector' THEN 'vector_cosine_ops' ELSE 'halfvec_cosine_ops' END;
--> statement-breakpoint
DROP FUNCTION quarry_vector_graph_index_sql(text, integer, integer, integer, boolean, integer);
--> statement-breakpoint
-- As in `0027`, over the dataset's encoding.
CREATE FUNCTION quarry_vector_graph_index_sql(dataset_id text, dimensions integer, encoding text, m integer, ef_construction integer, concurrent boolean, generation integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN format(
  'CREATE INDEX %s IF NOT EXISTS %I ON %I USING hnsw ((%s) %s) WITH (m = %s, ef_construction = %s) WHERE graph_generation <= %s',
  CASE WHEN concurrent THEN 'CONCURRENTLY' ELSE '' END,
  quarry_vector_graph_name(dataset_id, generation), quarry_vector_partition_name(dataset_id),
  quarry_vector_graph_expression(dimensions, encoding),
  quarry_vector_graph_operators(encoding),
  m, ef_construction, generation);
--> statement-breakpoint
DROP FUNCTION quarry_create_vector_graph(text, integer, integer, integer);
--> statement-breakpoint
-- As in `0027`, with the dataset's encoding.
CREATE FUNCTION quarry_create_vector_graph(dataset_id text, dimensions integer, encoding text, m integer, ef_construction integer) RETURNS void
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
  EXECUTE quarry_vector_graph_index_sql(dataset_id, dimensions, encoding, m, ef_construction, false, 0);
END
$fn$;
--> statement-breakpoint
-- As in `0027`, building the next graph over the dataset's encoding.
CREATE OR REPLACE FUNCTION quarry_vector_graph_state(dataset_id text)
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
  build_sql := quarry_vector_graph_index_sql(d.id, d.dimensions, d.graph_encoding, d.graph_m,
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
