-- Cheaper filter upkeep on every row write (the `rows_filter_metadata_*` triggers of 0007): a
-- 100-row insert spent 4.9 of its ~23 ms there on native PostgreSQL, measured by dropping the
-- trigger; these two changes take 2.4–2.9 ms of it off (`pnpm bench rows`, packages/db/README.md).
--
-- The GIN index of `row_filter_metadata` takes new entries into its pending list (fastupdate),
-- as the GIN indexes of `rows` do: inserted into the index one by one they cost 1.8 ms of the
-- 100 rows. 0007 kept it off because PGlite runs no autovacuum to empty a pending list; the
-- list is now emptied off the writers' path on both engines (`flushPendingIndexEntries`, and
-- the embedded database's own maintenance vacuums), so a filter reads little of it. ALTER INDEX,
-- not a rebuild: the entries stay where they are, and writers are not locked out.
ALTER INDEX "row_filter_metadata_gin_idx" SET (fastupdate = on);
--> statement-breakpoint
-- A row's equality terms (0007), without the UNION that deduplicated the two branches row by row
-- (a hash aggregate per row: 0.4 ms of 100 rows). The branches cannot overlap, since a key holds
-- either a scalar or a list; only a list's own repeats ("tags": ["a", "a"]) need removing, and
-- only that branch does it. The same terms as before, so nothing stored changes.
CREATE OR REPLACE FUNCTION quarry_filter_term_keys(dataset_id text, metadata jsonb) RETURNS SETOF uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT quarry_filter_term_key(dataset_id, e.key, e.value)
  FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END) e
  WHERE jsonb_typeof(e.value) IN ('string', 'number', 'boolean')
  UNION ALL
  SELECT DISTINCT quarry_filter_term_key(dataset_id, e.key, x.value)
  FROM jsonb_each(CASE WHEN jsonb_typeof(metadata) = 'object' THEN metadata ELSE '{}' END) e
  CROSS JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_typeof(e.value) = 'array' THEN e.value ELSE '[]' END) x
  WHERE jsonb_typeof(x.value) = 'string'
$fn$;
