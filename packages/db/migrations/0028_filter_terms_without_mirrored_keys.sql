-- No filter terms for the two service keys that mirror a column: `rowId` is the row's id and
-- `url` its document's url. The service sets both on every write and users cannot (core
-- rows/row-metadata.ts), so E6 answers a single equality on one of them from the column (core
-- rows/mirrored-key-page.ts): the row of that id by the primary key of `rows`, the rows of the
-- url's document by that document's `documentId` term. They were two of a CSV row's five terms
-- and the dearest to write: a `rowId` term's key is unique, so each went to a place of its own
-- in the terms' primary key. A 500-row insert's terms took 12.4–13.4 ms with them and 8.4–8.9
-- without (native PostgreSQL 15, 2026-12-02). `documentId` keeps its terms: its rows' range in
-- id order is what a large document's page is read from whatever the statistics say, where an
-- index of `rows` on (dataset_id, document_id, id), planned on an estimate of a few rows, was
-- read whole through a bitmap and sorted.
--
-- Their existing terms are deleted first, computed with the function as it still is (0024)
-- over those keys alone, so exactly the terms it once wrote for them go.
DELETE FROM row_filter_terms t
USING row_filter_metadata m
CROSS JOIN LATERAL quarry_filter_term_keys(m.dataset_id, (
  SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}')
  FROM jsonb_each(CASE WHEN jsonb_typeof(m.metadata) = 'object' THEN m.metadata ELSE '{}' END) e
  WHERE e.key IN ('rowId', 'url'))) AS k(term_key)
WHERE t.term_key = k.term_key AND t.row_id = m.row_id;
--> statement-breakpoint
-- 0024's terms of every other key, unchanged.
CREATE OR REPLACE FUNCTION quarry_filter_term_keys(dataset_id text, metadata jsonb) RETURNS SETOF uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT quarry_filter_term_key(dataset_id, e.key, e.value)
  FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END) e
  WHERE jsonb_typeof(e.value) IN ('string', 'number', 'boolean')
    AND e.key NOT IN ('rowId', 'url')
  UNION ALL
  SELECT DISTINCT quarry_filter_term_key(dataset_id, e.key, x.value)
  FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END) e
  CROSS JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE '[]' END) x
  WHERE jsonb_typeof(x.value) = 'string' AND e.key NOT IN ('rowId', 'url')
$fn$;
