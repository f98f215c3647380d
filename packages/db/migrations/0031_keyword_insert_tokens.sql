-- The keyword trigger (0021, 0023) counts the terms of an insert of one document's rows with
-- `ts_stat`, in C, instead of unnesting every row's tsvector and grouping the lexemes in SQL. That
-- insert is nearly every write: E11, E13 and each part of an ingest slice. Its 100 rows of ~500
-- characters hold ~4,200 lexemes, 435 distinct. Unnested and grouped, their counts took 1.7–2.0
-- ms; `ts_stat` over the same rows, read back by id, took 0.64–0.68 ms (native PostgreSQL 15).
-- A 100-row insert, alternating with the old function 40 times, took 28.53 ms (p50) against
-- 29.36.
--
-- `ts_stat` gives per term what the grouping did for one document: `ndoc`, the rows that have it,
-- and `nentry`, its positions, counting 1 for a term stored without positions. It reads the rows
-- through a query of its own. The rows are this statement's, read back by id: an AFTER trigger
-- sees them. A deletion's rows are gone by then, and an update has old versions to subtract, so
-- both keep the grouping, as does an insert of several documents.
-- Nothing stored changes: the postings, term deltas and document lengths are the same rows.
--
-- The function gains a parameter (the inserted rows' ids, NULL for other changes), so it is
-- dropped and made again; the trigger function is the only caller.
DROP FUNCTION quarry_apply_keyword_changes(quarry_keyword_change[], boolean);
--> statement-breakpoint
CREATE FUNCTION quarry_apply_keyword_changes(
  changes quarry_keyword_change[], removes boolean, inserted bigint[])
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  kept quarry_keyword_change[];
  -- the postings and documents these changes emptied (row count down to zero), by key
  emptied_posting_datasets text[];
  emptied_posting_terms text[];
  emptied_posting_documents text[];
  emptied_document_datasets text[];
  emptied_documents text[];
  -- set when every change is a row of one document just inserted: ts_stat counts its terms
  inserted_rows_query text;
BEGIN
  kept := ARRAY(
    SELECT c FROM unnest(changes) c JOIN keyword_datasets k ON k.dataset_id = c.dataset_id);
  IF cardinality(kept) = 0 THEN
    RETURN;
  END IF;
  IF cardinality(inserted) = cardinality(kept) AND NOT EXISTS (
      SELECT 1 FROM unnest(kept) c
      WHERE (c.dataset_id, c.document_id) IS DISTINCT FROM (kept[1].dataset_id, kept[1].document_id)) THEN
    inserted_rows_query := format('SELECT fts FROM rows WHERE id = ANY (%L::bigint[])', inserted);
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
    WHERE inserted_rows_query IS NULL
    GROUP BY 1, 2, 3
    UNION ALL
    -- word: the term; ndoc: the rows that have it; nentry: its positions (1 for a term without)
    SELECT kept[1].dataset_id, kept[1].document_id, s.word, s.ndoc, s.nentry
    FROM ts_stat(inserted_rows_query) AS s
    WHERE inserted_rows_query IS NOT NULL
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
  ),
  appended AS (
    INSERT INTO keyword_term_deltas (dataset_id, term, row_frequency, document_frequency)
    SELECT dataset_id, term, row_count, documents FROM term_delta
    WHERE row_count <> 0 OR documents <> 0
  )
  SELECT array_agg(u.dataset_id), array_agg(u.term), array_agg(u.document_id)
  INTO emptied_posting_datasets, emptied_posting_terms, emptied_posting_documents
  FROM upserted u WHERE u.row_count <= 0;

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
    RETURNING k.dataset_id, k.document_id, k.length, k.row_count
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
  ),
  appended AS (
    INSERT INTO keyword_dataset_deltas (dataset_id, row_count, document_count, total_length)
    SELECT dataset_id, row_count, documents, length FROM dataset_delta
    WHERE row_count <> 0 OR documents <> 0 OR length <> 0
  )
  SELECT array_agg(u.dataset_id), array_agg(u.document_id)
  INTO emptied_document_datasets, emptied_documents
  FROM upserted u WHERE u.row_count <= 0;

  -- What the changes emptied goes, by key: this statement updated those rows and holds them,
  -- so nobody else can have changed their counts since.
  IF removes AND emptied_posting_terms IS NOT NULL THEN
    DELETE FROM keyword_postings p
    USING unnest(emptied_posting_datasets, emptied_posting_terms, emptied_posting_documents)
      AS e(dataset_id, term, document_id)
    WHERE p.dataset_id = e.dataset_id AND p.term = e.term AND p.document_id = e.document_id;
  END IF;
  IF removes AND emptied_documents IS NOT NULL THEN
    DELETE FROM keyword_documents k
    USING unnest(emptied_document_datasets, emptied_documents) AS e(dataset_id, document_id)
    WHERE k.dataset_id = e.dataset_id AND k.document_id = e.document_id;
  END IF;
END
$fn$;
--> statement-breakpoint
-- The trigger function of 0021, passing an insert's row ids on.
CREATE OR REPLACE FUNCTION quarry_keyword_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM quarry_apply_keyword_changes(ARRAY(
      SELECT ROW(n.dataset_id, n.document_id, n.fts, n.keyword_length, 1)::quarry_keyword_change
      FROM quarry_new_rows n), false, ARRAY(SELECT n.id FROM quarry_new_rows n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM quarry_apply_keyword_changes(ARRAY(
      SELECT ROW(o.dataset_id, o.document_id, o.fts, o.keyword_length, -1)::quarry_keyword_change
      FROM quarry_old_rows o), true, NULL);
  ELSE
    PERFORM quarry_apply_keyword_changes(ARRAY(
      SELECT x.change
      FROM quarry_old_rows o JOIN quarry_new_rows n ON n.id = o.id
      CROSS JOIN LATERAL (VALUES
        (ROW(o.dataset_id, o.document_id, o.fts, o.keyword_length, -1)::quarry_keyword_change),
        (ROW(n.dataset_id, n.document_id, n.fts, n.keyword_length, 1)::quarry_keyword_change)
      ) AS x(change)
      WHERE (o.fts, o.dataset_id, o.document_id) IS DISTINCT FROM (n.fts, n.dataset_id, n.document_id)
    ), true, NULL);
  END IF;
  RETURN NULL;
END
$fn$;
