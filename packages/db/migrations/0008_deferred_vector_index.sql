CREATE TABLE "indexed_vectors" (
	"row_id" bigint PRIMARY KEY NOT NULL,
	"dataset_id" text NOT NULL,
	"embedding" vector NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vector_backlog" (
	"dataset_id" text NOT NULL,
	"row_id" bigint NOT NULL,
	CONSTRAINT "vector_backlog_dataset_id_row_id_pk" PRIMARY KEY("dataset_id","row_id")
);

--> statement-breakpoint
-- Keeps `indexed_vectors` and `vector_backlog` in step with every write of `rows`, inside the
-- writing statement (statement-level, with transition tables, like the filter tables):
-- - a new row with an embedding joins the backlog;
-- - a row whose embedding changed leaves the graph and (if it still has one) joins the
--   backlog: the backlog insert comes first, so on a server that runs writers concurrently it
--   waits for an indexer that is moving the same row, and the delete then sees its insert;
-- - a deleted row leaves both.
CREATE FUNCTION quarry_row_vectors_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_backlog (dataset_id, row_id)
    SELECT n.dataset_id, n.id FROM quarry_new_rows n WHERE n.embedding IS NOT NULL;
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM indexed_vectors v USING quarry_old_rows o WHERE v.row_id = o.id;
    DELETE FROM vector_backlog b USING quarry_old_rows o
    WHERE b.dataset_id = o.dataset_id AND b.row_id = o.id;
  ELSE
    INSERT INTO vector_backlog (dataset_id, row_id)
    SELECT n.dataset_id, n.id
    FROM quarry_new_rows n JOIN quarry_old_rows o ON o.id = n.id
    WHERE n.embedding IS NOT NULL
      AND (o.embedding IS DISTINCT FROM n.embedding OR o.dataset_id <> n.dataset_id)
    ON CONFLICT DO NOTHING;
    DELETE FROM vector_backlog b
    USING quarry_old_rows o JOIN quarry_new_rows n ON n.id = o.id
    WHERE b.dataset_id = o.dataset_id AND b.row_id = o.id
      AND (n.embedding IS NULL OR o.dataset_id <> n.dataset_id);
    DELETE FROM indexed_vectors v
    USING quarry_old_rows o JOIN quarry_new_rows n ON n.id = o.id
    WHERE v.row_id = o.id
      AND (o.embedding IS DISTINCT FROM n.embedding OR o.dataset_id <> n.dataset_id);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER rows_vectors_insert AFTER INSERT ON rows
  REFERENCING NEW TABLE AS quarry_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_row_vectors_changed();
--> statement-breakpoint
CREATE TRIGGER rows_vectors_delete AFTER DELETE ON rows
  REFERENCING OLD TABLE AS quarry_old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_row_vectors_changed();
--> statement-breakpoint
CREATE TRIGGER rows_vectors_update AFTER UPDATE ON rows
  REFERENCING OLD TABLE AS quarry_old_rows NEW TABLE AS quarry_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_row_vectors_changed();
--> statement-breakpoint
-- The per-dataset graphs move from `rows` to `indexed_vectors` (same expression, same
-- predicate, same operator class). The old indexes go first, under their old names.
DO $do$
DECLARE d record;
BEGIN
  FOR d IN SELECT id FROM datasets LOOP
    EXECUTE format('DROP INDEX IF EXISTS %I', 'rows_embedding_' || left(md5(d.id), 24));
  END LOOP;
END
$do$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION quarry_vector_index_name(dataset_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 'indexed_vectors_' || left(md5(dataset_id), 24);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION quarry_create_vector_index(dataset_id text, dimensions integer) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format(
    'CREATE INDEX IF NOT EXISTS %I ON indexed_vectors USING hnsw ((%s) %s) WHERE dataset_id = %L',
    quarry_vector_index_name(dataset_id), quarry_vector_expression(dimensions),
    CASE WHEN dimensions <= 2000 THEN 'vector_cosine_ops' ELSE 'halfvec_cosine_ops' END,
    dataset_id);
END
$fn$;
--> statement-breakpoint
-- Rows stored before this migration were in their graph already: they are copied as indexed
-- (after the triggers exist: CREATE TRIGGER locks out writers of `rows` until this commits),
-- and each graph is built once over the copy rather than grown row by row.
INSERT INTO indexed_vectors (row_id, dataset_id, embedding)
SELECT id, dataset_id, embedding FROM rows WHERE embedding IS NOT NULL;
--> statement-breakpoint
SELECT quarry_create_vector_index(id, dimensions) FROM datasets;
