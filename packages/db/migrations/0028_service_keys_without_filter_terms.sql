-- No filter terms for three service keys, `rowId`, `url` and `chunk`: the service sets them on
-- every write and users cannot (core rows/row-metadata.ts), and E6 answers a single equality on
-- them without terms (core rows/service-key-page.ts): `rowId` is the row's id (its primary
-- key), `url` its document's url (that document's `documentId` term), and `chunk` matches a row
-- of each document at most (the GIN index of `row_filter_metadata` finds so few). Their terms
-- were three of a CSV row's five and the dearest to write: a `rowId` term's key is unique and a
-- `chunk` term's one per document, so each went to a place of its own in the terms' primary
-- key. A 500-row insert's terms, with all five against without these three (native PostgreSQL
-- 15, 2026-12-02): 12.4–14.3 ms against 8.4–8.9 without `rowId` and `url`, and 9.0 against 6.1
-- without `chunk` as well. `documentId` keeps its terms: its range, in id order, is what a
-- large document's page is read from whatever the statistics say; read from
-- `rows_dataset_document_idx` instead, planned on an estimate of a few rows, the document was
-- read whole through a bitmap and sorted.
--
-- Their existing terms are deleted first, computed with the function as it still is (0024)
-- over those keys alone, so exactly the terms it once wrote for them go.
DELETE FROM row_filter_terms t
USING row_filter_metadata m
CROSS JOIN LATERAL quarry_filter_term_keys(m.dataset_id, (
  SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}')
  FROM jsonb_each(CASE WHEN jsonb_typeof(m.metadata) = 'object' THEN m.metadata ELSE '{}' END) e
  WHERE e.key IN ('rowId', 'url', 'chunk'))) AS k(term_key)
WHERE t.term_key = k.term_key AND t.row_id = m.row_id;
--> statement-breakpoint
-- 0024's terms of every other key, unchanged.
CREATE OR REPLACE FUNCTION quarry_filter_term_keys(dataset_id text, metadata jsonb) RETURNS SETOF uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT quarry_filter_term_key(dataset_id, e.key, e.value)
  FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END) e
  WHERE jsonb_typeof(e.value) IN ('string', 'number', 'boolean')
    AND e.key NOT IN ('rowId', 'url', 'chunk')
  UNION ALL
  SELECT DISTINCT quarry_filter_term_key(dataset_id, e.key, x.value)
  FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END) e
  CROSS JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE '[]' END) x
  WHERE jsonb_typeof(x.value) = 'string' AND e.key NOT IN ('rowId', 'url', 'chunk')
$fn$;
