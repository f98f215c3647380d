-- A search of one dataset reads only that dataset's waiting rows, however many datasets share
-- the backlog. Every semantic search ranks its dataset's backlog entries exactly, and the
-- planner chose how to find them by the dataset's share of the table in its statistics: once
-- the dataset held a large part of it, a scan of the whole table looked cheaper than the key's
-- range (its cost model prices each entry fetched by the key as a random read), and every
-- search read every dataset's waiting rows. On native PostgreSQL 15, 10k of 50k waiting rows
-- (five datasets, written interleaved, as tenants write) were ranked in 11.9 ms (p50) by the
-- scan, against 4.8 by the key (docs/benchmarks.md, "2026-12-03, evening").
--
-- So the ranking reads the key's range whatever the statistics say: a function that plans its
-- one statement with the table scans (and bitmap scans, which fetch the same entries in page
-- order only to sort them again) turned off, the planner's own switches, set for the function's
-- call alone. Alone in the table, the same 10k rows took 2.90 ms by the key against 2.61 by the
-- scan: the price of never reading the other datasets' rows.
--
-- Statistics without the column's distribution (a target of 0) would have kept the scan off
-- too, but every dataset would then look like 0.5 % of the table, and the indexer's moves, which
-- take the oldest `take` entries by the key, would be planned for fewer entries than they take:
-- they read and sorted the dataset's whole backlog for each move.
--
-- The embeddings are compared as `vector`, the column's type: each entry has its dataset's
-- dimensions (the triggers copy them from `rows`), and `<=>` checks them anyway.
CREATE FUNCTION quarry_nearest_waiting_rows(dataset_id text, query vector, k integer)
RETURNS TABLE (id bigint, distance double precision)
LANGUAGE sql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $fn$
  SELECT b.row_id, b.embedding <=> $2 FROM vector_backlog b
  WHERE b.dataset_id = $1
  ORDER BY 2, 1 LIMIT $3
$fn$;
