-- The keyword statistics trigger of 0010, in static SQL. It used to build its statements as text
-- (`EXECUTE format(…)`, the change of rows differing by operation) and so parsed and planned two
-- large statements on every write: ~1 ms of a 10-row insert's ~5 ms on native PostgreSQL
-- (`pnpm bench load` writes 10-row upserts). Static statements are planned once per session.
-- What changed stays exactly as in 0010: each operation hands its changed rows, as one array,
-- to `quarry_apply_keyword_changes`, whose statements are those of 0010 over that array.
--
-- The cached plans are generic (planned for whatever array came first); their joins between
-- the statement's own sets stay hash or merge joins, and a 2,000-row insert, update or delete
-- planned after a 1-row one ran as fast as replanned (packages/db/README.md).
CREATE TYPE "quarry_keyword_change" AS (
	"dataset_id" text,
	"document_id" text,
	"fts" tsvector,
	"keyword_length" integer,
	"sign" integer
);
--> statement-breakpoint
-- Applies rows' keyword changes (sign +1: the row counts now, -1: it no longer does) to the
-- postings and document lengths of their documents, in key order, and appends the terms' and
-- datasets' changes to the delta tables (0010). Changes of datasets without a keyword_datasets
-- row (being deleted) are dropped first (`kept`). With `removes`, postings and documents the
-- changes emptied are deleted: only these changes' own, which the statement has locked already
-- (a sweep of every empty one would wait for other writers' rows).
CREATE FUNCTION quarry_apply_keyword_changes(changes quarry_keyword_change[], removes boolean)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  kept quarry_keyword_change[];
BEGIN
  kept := ARRAY(
    SELECT c FROM unnest(changes) c JOIN keyword_datasets k ON k.dataset_id = c.dataset_id);
  IF cardinality(kept) = 0 THEN
    RETURN;
  END IF;

  -- Postings, in key order; each term's change in rows and in documents (a posting's document
  -- count changes when its row count crosses zero: (now > 0) - (before > 0), where before =
  -- now - delta) is appended to the term deltas.
  WITH delta AS MATERIALIZED (
    SELECT c.dataset_id, c.document_id, c.fts, c.sign
    FROM unnest(kept) c
  ),
  tokens AS MATERIALIZED (
    SELECT d.dataset_id, d.document_id, u.lexeme AS term,
           sum(d.sign)::integer AS row_count,
           sum(d.sign * coalesce(cardinality(u.positions), 1))::integer AS frequency
    FROM delta d CROSS JOIN LATERAL unnest(d.fts) AS u
    GROUP BY 1, 2, 3
  ),
  upserted AS (
    INSERT INTO keyword_postings AS p (dataset_id, term, document_id, row_count, frequency)
    SELECT dataset_id, term, document_id, row_count, frequency FROM tokens
    WHERE row_count <> 0 OR frequency <> 0
    ORDER BY 1, 2, 3
    ON CONFLICT (dataset_id, term, document_id) DO UPDATE
      SET row_count = p.row_count + excluded.row_count, frequency = p.frequency + excluded.frequency
    RETURNING p.dataset_id, p.term, p.document_id, p.row_count
  ),
  term_delta AS (
    SELECT t.dataset_id, t.term, sum(t.row_count)::integer AS row_count,
           sum((u.row_count > 0)::integer - (u.row_count - t.row_count > 0)::integer)::integer AS documents
    FROM tokens t JOIN upserted u
      ON u.dataset_id = t.dataset_id AND u.term = t.term AND u.document_id = t.document_id
    GROUP BY 1, 2
  )
  INSERT INTO keyword_term_deltas (dataset_id, term, row_frequency, document_frequency)
  SELECT dataset_id, term, row_count, documents FROM term_delta
  WHERE row_count <> 0 OR documents <> 0;

  -- Document lengths, in key order; the dataset's change in counts and total length is appended.
  WITH delta AS MATERIALIZED (
    SELECT c.dataset_id, c.document_id, c.keyword_length, c.sign
    FROM unnest(kept) c
  ),
  docs AS (
    SELECT dataset_id, document_id, sum(sign)::integer AS row_count,
           sum(sign * coalesce(keyword_length, 0))::bigint AS length
    FROM delta GROUP BY 1, 2
  ),
  upserted AS (
    INSERT INTO keyword_documents AS k (dataset_id, document_id, row_count, length)
    SELECT dataset_id, document_id, row_count, length FROM docs ORDER BY 1, 2
    ON CONFLICT (dataset_id, document_id) DO UPDATE
      SET row_count = k.row_count + excluded.row_count, length = k.length + excluded.length
    RETURNING k.dataset_id, k.document_id, k.length
  ),
  dataset_delta AS (
    SELECT dataset_id, sum(row_count)::bigint AS row_count, sum(documents)::bigint AS documents,
           sum(length)::bigint AS length
    FROM (
      SELECT dataset_id, coalesce(sum(sign) FILTER (WHERE keyword_length > 0), 0) AS row_count,
             0 AS documents, sum(sign * coalesce(keyword_length, 0)) AS length
      FROM delta GROUP BY 1
      UNION ALL
      SELECT u.dataset_id, 0, (u.length > 0)::integer - (u.length - d.length > 0)::integer, 0
      FROM upserted u JOIN docs d ON d.dataset_id = u.dataset_id AND d.document_id = u.document_id
    ) x GROUP BY 1
  )
  INSERT INTO keyword_dataset_deltas (dataset_id, row_count, document_count, total_length)
  SELECT dataset_id, row_count, documents, length FROM dataset_delta
  WHERE row_count <> 0 OR documents <> 0 OR length <> 0;

  IF removes THEN
    DELETE FROM keyword_postings p
    USING (SELECT DISTINCT c.dataset_id, u.lexeme AS term, c.document_id
           FROM unnest(kept) c CROSS JOIN LATERAL unnest(c.fts) AS u WHERE c.sign < 0) x
    WHERE p.dataset_id = x.dataset_id AND p.term = x.term AND p.document_id = x.document_id
      AND p.row_count <= 0;
    DELETE FROM keyword_documents k
    USING (SELECT DISTINCT c.dataset_id, c.document_id
           FROM unnest(kept) c WHERE c.sign < 0) x
    WHERE k.dataset_id = x.dataset_id AND k.document_id = x.document_id AND k.row_count <= 0;
  END IF;
END
$fn$;
--> statement-breakpoint
-- The statement-level trigger of 0004/0010, same name and triggers: hands the statement's
-- changed rows to `quarry_apply_keyword_changes`. An update counts as removing the old version
-- and adding the new one, for the rows whose text (or place) changed; a metadata-only update
-- costs nothing here.
CREATE OR REPLACE FUNCTION quarry_keyword_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM quarry_apply_keyword_changes(ARRAY(
      SELECT ROW(n.dataset_id, n.document_id, n.fts, n.keyword_length, 1)::quarry_keyword_change
      FROM quarry_new_rows n), false);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM quarry_apply_keyword_changes(ARRAY(
      SELECT ROW(o.dataset_id, o.document_id, o.fts, o.keyword_length, -1)::quarry_keyword_change
      FROM quarry_old_rows o), true);
  ELSE
    PERFORM quarry_apply_keyword_changes(ARRAY(
      SELECT x.change
      FROM quarry_old_rows o JOIN quarry_new_rows n ON n.id = o.id
      CROSS JOIN LATERAL (VALUES
        (ROW(o.dataset_id, o.document_id, o.fts, o.keyword_length, -1)::quarry_keyword_change),
        (ROW(n.dataset_id, n.document_id, n.fts, n.keyword_length, 1)::quarry_keyword_change)
      ) AS x(change)
      WHERE (o.fts, o.dataset_id, o.document_id) IS DISTINCT FROM (n.fts, n.dataset_id, n.document_id)
    ), true);
  END IF;
  RETURN NULL;
END
$fn$;
