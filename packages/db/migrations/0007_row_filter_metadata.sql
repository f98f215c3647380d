-- What E6 filters read instead of `rows` (schema/row-filter-metadata.ts, row-filter-terms.ts):
-- a narrow copy of the rows' metadata, and the equality terms of that metadata in id order.
CREATE TABLE "row_filter_metadata" (
	"dataset_id" text NOT NULL,
	"row_id" bigint NOT NULL,
	"metadata" jsonb NOT NULL,
	CONSTRAINT "row_filter_metadata_dataset_id_row_id_pk" PRIMARY KEY("dataset_id","row_id")
);
--> statement-breakpoint
CREATE TABLE "row_filter_terms" (
	"term_key" uuid NOT NULL,
	"row_id" bigint NOT NULL,
	CONSTRAINT "row_filter_terms_term_key_row_id_pk" PRIMARY KEY("term_key","row_id")
);
--> statement-breakpoint
-- The key of the term "`key` is `value`" in a dataset: the md5, as a uuid, of the three in one
-- unambiguous string (dataset and key length-prefixed, then the value as jsonb prints it, so
-- "7" and 7 and true stay apart); stable across Postgres versions and platforms. Numbers are
-- taken in canonical form, so 7 and 7.0 are one term, as they are one value to `@>`. Only
-- immutable functions, so Postgres inlines it into the statements that call it. E6 computes
-- the key of its filter with this same function.
CREATE FUNCTION quarry_filter_term_key(dataset_id text, key text, value jsonb) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT md5(length(dataset_id)::text || ':' || dataset_id || length(key)::text || ':' || key ||
    CASE WHEN jsonb_typeof(value) = 'number' THEN trim_scale(value::numeric)::text ELSE value::text END
  )::uuid
$fn$;
--> statement-breakpoint
-- A row's terms: each key with a scalar value (string, number, boolean), and each string of a
-- list — exactly what `{key: value}` matches by containment (a list contains strings only in
-- that sense; a number or boolean only matches the same scalar). Other values have no term.
CREATE FUNCTION quarry_filter_term_keys(dataset_id text, metadata jsonb) RETURNS SETOF uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT quarry_filter_term_key(dataset_id, e.key, e.value)
  FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END) e
  WHERE jsonb_typeof(e.value) IN ('string', 'number', 'boolean')
  UNION
  SELECT quarry_filter_term_key(dataset_id, e.key, x.value)
  FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END) e
  CROSS JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE '[]' END) x
  WHERE jsonb_typeof(x.value) = 'string'
$fn$;
--> statement-breakpoint
-- Applies a statement's row writes to both inside that statement: statement-level, with
-- transition tables, so a batch costs a few set-wise statements rather than work per row. An
-- update rewrites only the rows whose metadata (or dataset, or id) changed: a text-only E8
-- costs nothing here.
CREATE FUNCTION quarry_row_filter_metadata_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO row_filter_metadata (dataset_id, row_id, metadata)
    SELECT n.dataset_id, n.id, n.metadata FROM quarry_new_rows n;
    INSERT INTO row_filter_terms (term_key, row_id)
    SELECT k.term_key, n.id
    FROM quarry_new_rows n CROSS JOIN LATERAL quarry_filter_term_keys(n.dataset_id, n.metadata) k(term_key);
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM row_filter_metadata m USING quarry_old_rows o
    WHERE m.dataset_id = o.dataset_id AND m.row_id = o.id;
    DELETE FROM row_filter_terms t
    USING quarry_old_rows o CROSS JOIN LATERAL quarry_filter_term_keys(o.dataset_id, o.metadata) k(term_key)
    WHERE t.term_key = k.term_key AND t.row_id = o.id;
  ELSE
    DELETE FROM row_filter_metadata m USING quarry_old_rows o
    WHERE m.dataset_id = o.dataset_id AND m.row_id = o.id
      AND NOT EXISTS (SELECT 1 FROM quarry_new_rows n
                      WHERE n.id = o.id AND n.dataset_id = o.dataset_id AND n.metadata = o.metadata);
    DELETE FROM row_filter_terms t
    USING quarry_old_rows o CROSS JOIN LATERAL quarry_filter_term_keys(o.dataset_id, o.metadata) k(term_key)
    WHERE t.term_key = k.term_key AND t.row_id = o.id
      AND NOT EXISTS (SELECT 1 FROM quarry_new_rows n
                      WHERE n.id = o.id AND n.dataset_id = o.dataset_id AND n.metadata = o.metadata);
    INSERT INTO row_filter_metadata (dataset_id, row_id, metadata)
    SELECT n.dataset_id, n.id, n.metadata FROM quarry_new_rows n
    WHERE NOT EXISTS (SELECT 1 FROM quarry_old_rows o
                      WHERE o.id = n.id AND o.dataset_id = n.dataset_id AND o.metadata = n.metadata);
    INSERT INTO row_filter_terms (term_key, row_id)
    SELECT k.term_key, n.id
    FROM quarry_new_rows n CROSS JOIN LATERAL quarry_filter_term_keys(n.dataset_id, n.metadata) k(term_key)
    WHERE NOT EXISTS (SELECT 1 FROM quarry_old_rows o
                      WHERE o.id = n.id AND o.dataset_id = n.dataset_id AND o.metadata = n.metadata);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER rows_filter_metadata_insert AFTER INSERT ON rows
  REFERENCING NEW TABLE AS quarry_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_row_filter_metadata_changed();
--> statement-breakpoint
CREATE TRIGGER rows_filter_metadata_delete AFTER DELETE ON rows
  REFERENCING OLD TABLE AS quarry_old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_row_filter_metadata_changed();
--> statement-breakpoint
CREATE TRIGGER rows_filter_metadata_update AFTER UPDATE ON rows
  REFERENCING OLD TABLE AS quarry_old_rows NEW TABLE AS quarry_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_row_filter_metadata_changed();
--> statement-breakpoint
-- Existing rows, copied after the triggers exist: CREATE TRIGGER locks out writers of `rows`
-- until this migration commits, so no write falls between the copy and the triggers. The GIN
-- index is built once over the copied rows rather than grown row by row.
INSERT INTO row_filter_metadata (dataset_id, row_id, metadata)
SELECT dataset_id, id, metadata FROM rows;
--> statement-breakpoint
INSERT INTO row_filter_terms (term_key, row_id)
SELECT k.term_key, r.id
FROM rows r CROSS JOIN LATERAL quarry_filter_term_keys(r.dataset_id, r.metadata) k(term_key);
--> statement-breakpoint
-- fastupdate off: PGlite runs no autovacuum of its own, so a pending list would only be
-- flushed when it outgrows gin_pending_list_limit, and every filter would read all of it.
CREATE INDEX "row_filter_metadata_gin_idx" ON "row_filter_metadata" USING gin ("dataset_id","metadata" jsonb_path_ops) WITH (fastupdate=false);
