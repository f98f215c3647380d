ALTER TABLE "datasets" ADD COLUMN "graph_m" integer DEFAULT 16 NOT NULL;--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "graph_ef_construction" integer DEFAULT 64 NOT NULL;--> statement-breakpoint
-- A dataset's graph is built with its own `m` and `ef_construction` (the columns above, chosen
-- by its model family): how densely HNSW links vectors decides how long a candidate list a
-- search needs for a given recall. Existing graphs keep what they were built with (16, 64).
DROP FUNCTION quarry_create_vector_index(text, integer);
--> statement-breakpoint
CREATE FUNCTION quarry_create_vector_index(dataset_id text, dimensions integer, m integer, ef_construction integer) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format(
    'CREATE INDEX IF NOT EXISTS %I ON indexed_vectors USING hnsw ((%s) %s) WITH (m = %s, ef_construction = %s) WHERE dataset_id = %L',
    quarry_vector_index_name(dataset_id), quarry_vector_expression(dimensions),
    CASE WHEN dimensions <= 2000 THEN 'vector_cosine_ops' ELSE 'halfvec_cosine_ops' END,
    m, ef_construction, dataset_id);
END
$fn$;
