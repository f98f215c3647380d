CREATE TABLE "keyword_dataset_deltas" (
	"dataset_id" text NOT NULL,
	"row_count" bigint NOT NULL,
	"document_count" bigint NOT NULL,
	"total_length" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "keyword_term_deltas" (
	"dataset_id" text NOT NULL,
	"term" text NOT NULL,
	"row_frequency" integer NOT NULL,
	"document_frequency" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "keyword_dataset_deltas_dataset_idx" ON "keyword_dataset_deltas" USING btree ("dataset_id");--> statement-breakpoint
CREATE INDEX "keyword_term_deltas_term_idx" ON "keyword_term_deltas" USING btree ("dataset_id","term");--> statement-breakpoint
-- Concurrent writers of one dataset (packages/db/CONCURRENCY.md). The keyword statistics that every
-- writer of a dataset shares — per-term frequencies and the dataset's counts — are no longer
-- updated in place: writers append their changes to the delta tables above, which takes no
-- row lock, and `quarry_fold_keyword_deltas` folds them in later. What stays updated in place
-- is per document (postings, document lengths), which only the writers of that document touch:
-- they hold the document's row, or lock the postings in key order within one statement.
-- Postings and documents whose rows all went are deleted (they used to stay at zero).
CREATE OR REPLACE FUNCTION quarry_keyword_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  delta text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    delta := 'SELECT n.dataset_id, n.document_id, n.fts, n.keyword_length, 1 AS sign FROM quarry_new_rows n';
  ELSIF TG_OP = 'DELETE' THEN
    delta := 'SELECT o.dataset_id, o.document_id, o.fts, o.keyword_length, -1 AS sign FROM quarry_old_rows o';
  ELSE
    -- An update counts as removing the old version and adding the new one, for the rows
    -- whose text (or place) changed; a metadata-only update costs nothing here.
    delta := 'SELECT x.* FROM quarry_old_rows o JOIN quarry_new_rows n ON n.id = o.id
      CROSS JOIN LATERAL (VALUES (o.dataset_id, o.document_id, o.fts, o.keyword_length, -1),
                                 (n.dataset_id, n.document_id, n.fts, n.keyword_length, 1))
        AS x(dataset_id, document_id, fts, keyword_length, sign)
      WHERE (o.fts, o.dataset_id, o.document_id) IS DISTINCT FROM (n.fts, n.dataset_id, n.document_id)';
  END IF;
  -- Datasets without a keyword_datasets row (being deleted) are skipped.
  delta := format('SELECT d.* FROM (%s) d JOIN keyword_datasets k ON k.dataset_id = d.dataset_id', delta);

  -- Postings, in key order; each term's change in rows and in documents (a posting's document
  -- count changes when its row count crosses zero: (now > 0) - (before > 0), where before =
  -- now - delta) is appended to the term deltas.
  EXECUTE format($sql$
    WITH delta AS MATERIALIZED (%s),
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
    WHERE row_count <> 0 OR documents <> 0
  $sql$, delta);

  -- Document lengths, in key order; the dataset's change in counts and total length is appended.
  EXECUTE format($sql$
    WITH delta AS MATERIALIZED (%s),
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
    WHERE row_count <> 0 OR documents <> 0 OR length <> 0
  $sql$, delta);

  -- Only this statement's own postings and documents, which it has locked already: a sweep
  -- of every empty one would wait for other writers' rows.
  IF TG_OP <> 'INSERT' THEN
    EXECUTE format($sql$
      DELETE FROM keyword_postings p
      USING (SELECT DISTINCT d.dataset_id, u.lexeme AS term, d.document_id
             FROM (%s) d CROSS JOIN LATERAL unnest(d.fts) AS u WHERE d.sign < 0) k
      WHERE p.dataset_id = k.dataset_id AND p.term = k.term AND p.document_id = k.document_id
        AND p.row_count <= 0
    $sql$, delta);
    EXECUTE format($sql$
      DELETE FROM keyword_documents k
      USING (SELECT DISTINCT d.dataset_id, d.document_id FROM (%s) d WHERE d.sign < 0) x
      WHERE k.dataset_id = x.dataset_id AND k.document_id = x.document_id AND k.row_count <= 0
    $sql$, delta);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
-- Folds a dataset's appended deltas into `keyword_terms` and `keyword_datasets`; returns how
-- many delta rows it folded. Readers add the deltas to the base rows in the same snapshot, so
-- folding changes no figure anyone reads. It never waits: a dataset being deleted (its row
-- locked for the delete) or already being folded by another caller is skipped.
CREATE FUNCTION quarry_fold_keyword_deltas(target_dataset text) RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
  folded integer;
  emptied text[];
BEGIN
  PERFORM 1 FROM datasets WHERE id = target_dataset FOR KEY SHARE SKIP LOCKED;
  IF NOT FOUND THEN RETURN 0; END IF;
  IF NOT pg_try_advisory_xact_lock(hashtext('quarry_fold_keyword_deltas'), hashtext(target_dataset)) THEN
    RETURN 0;
  END IF;

  WITH moved AS (
    DELETE FROM keyword_term_deltas WHERE dataset_id = target_dataset
    RETURNING term, row_frequency, document_frequency
  ),
  summed AS (
    SELECT term, sum(row_frequency)::integer AS row_frequency,
           sum(document_frequency)::integer AS document_frequency, count(*) AS deltas
    FROM moved GROUP BY term
  ),
  upserted AS (
    INSERT INTO keyword_terms AS k (dataset_id, term, row_frequency, document_frequency)
    SELECT target_dataset, term, row_frequency, document_frequency FROM summed ORDER BY term
    ON CONFLICT (dataset_id, term) DO UPDATE
      SET row_frequency = k.row_frequency + excluded.row_frequency,
          document_frequency = k.document_frequency + excluded.document_frequency
    RETURNING k.term, k.row_frequency, k.document_frequency
  )
  SELECT coalesce((SELECT sum(deltas) FROM summed), 0)::integer,
         (SELECT array_agg(term) FROM upserted WHERE row_frequency <= 0 AND document_frequency <= 0)
  INTO folded, emptied;
  IF emptied IS NOT NULL THEN
    DELETE FROM keyword_terms
    WHERE dataset_id = target_dataset AND term = ANY (emptied)
      AND row_frequency <= 0 AND document_frequency <= 0;
  END IF;

  WITH moved AS (
    DELETE FROM keyword_dataset_deltas WHERE dataset_id = target_dataset
    RETURNING row_count, document_count, total_length
  ),
  summed AS (
    SELECT count(*) AS deltas, coalesce(sum(row_count), 0) AS row_count,
           coalesce(sum(document_count), 0) AS document_count,
           coalesce(sum(total_length), 0) AS total_length
    FROM moved
  )
  UPDATE keyword_datasets k
  SET row_count = k.row_count + s.row_count, document_count = k.document_count + s.document_count,
      total_length = k.total_length + s.total_length
  FROM summed s WHERE k.dataset_id = target_dataset AND s.deltas > 0;
  RETURN folded;
END
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION quarry_keyword_datasets_deleted() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM keyword_postings p USING quarry_old_datasets o WHERE p.dataset_id = o.dataset_id;
  DELETE FROM keyword_terms t USING quarry_old_datasets o WHERE t.dataset_id = o.dataset_id;
  DELETE FROM keyword_term_deltas t USING quarry_old_datasets o WHERE t.dataset_id = o.dataset_id;
  DELETE FROM keyword_dataset_deltas d USING quarry_old_datasets o WHERE d.dataset_id = o.dataset_id;
  DELETE FROM keyword_documents d USING quarry_old_datasets o WHERE d.dataset_id = o.dataset_id;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
-- Postings left at zero by the previous trigger, and terms that no row has any more.
DELETE FROM keyword_postings WHERE row_count <= 0;
--> statement-breakpoint
DELETE FROM keyword_terms WHERE row_frequency <= 0 AND document_frequency <= 0;
