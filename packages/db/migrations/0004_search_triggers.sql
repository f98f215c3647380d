-- Search (issue 5), part 3 of 3: keeping the keyword statistics, and per-dataset vector indexes.

-- Applies the rows a statement added, removed or changed to the keyword statistics of their
-- datasets, inside that statement: statement-level, with transition tables, so a batch of
-- rows costs one aggregate per table rather than work per row. Upserts run in key order, so
-- concurrent writers lock statistics rows in the same order and cannot deadlock on them.
-- Datasets without a keyword_datasets row (being deleted) are skipped.
CREATE FUNCTION quarry_keyword_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
  delta := format('SELECT d.* FROM (%s) d JOIN keyword_datasets k ON k.dataset_id = d.dataset_id', delta);

  -- Postings and term frequencies. A posting's document count changes when its row count
  -- crosses zero: (now > 0) - (before > 0), where before = now - delta.
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
    INSERT INTO keyword_terms AS k (dataset_id, term, row_frequency, document_frequency)
    SELECT dataset_id, term, row_count, documents FROM term_delta ORDER BY 1, 2
    ON CONFLICT (dataset_id, term) DO UPDATE
      SET row_frequency = k.row_frequency + excluded.row_frequency,
          document_frequency = k.document_frequency + excluded.document_frequency
  $sql$, delta);

  -- Document lengths, and the dataset's counts and total length.
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
      SELECT dataset_id, sum(row_count) AS row_count, sum(documents) AS documents, sum(length) AS length
      FROM (
        SELECT dataset_id, coalesce(sum(sign) FILTER (WHERE keyword_length > 0), 0) AS row_count,
               0 AS documents, sum(sign * coalesce(keyword_length, 0)) AS length
        FROM delta GROUP BY 1
        UNION ALL
        SELECT u.dataset_id, 0, (u.length > 0)::integer - (u.length - d.length > 0)::integer, 0
        FROM upserted u JOIN docs d ON d.dataset_id = u.dataset_id AND d.document_id = u.document_id
      ) x GROUP BY 1
    )
    UPDATE keyword_datasets k
    SET row_count = k.row_count + dd.row_count, document_count = k.document_count + dd.documents,
        total_length = k.total_length + dd.length
    FROM dataset_delta dd WHERE k.dataset_id = dd.dataset_id
  $sql$, delta);

  IF TG_OP <> 'INSERT' THEN
    DELETE FROM keyword_documents WHERE row_count <= 0;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER rows_keyword_insert AFTER INSERT ON rows REFERENCING NEW TABLE AS quarry_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_keyword_rows_changed();
--> statement-breakpoint
CREATE TRIGGER rows_keyword_delete AFTER DELETE ON rows REFERENCING OLD TABLE AS quarry_old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_keyword_rows_changed();
--> statement-breakpoint
CREATE TRIGGER rows_keyword_update AFTER UPDATE ON rows
  REFERENCING OLD TABLE AS quarry_old_rows NEW TABLE AS quarry_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_keyword_rows_changed();
--> statement-breakpoint
-- The per-term tables have no foreign key (one check per posting would double the cost of
-- writing rows); they go with their dataset's keyword_datasets row instead.
CREATE FUNCTION quarry_keyword_datasets_deleted() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM keyword_postings p USING quarry_old_datasets o WHERE p.dataset_id = o.dataset_id;
  DELETE FROM keyword_terms t USING quarry_old_datasets o WHERE t.dataset_id = o.dataset_id;
  DELETE FROM keyword_documents d USING quarry_old_datasets o WHERE d.dataset_id = o.dataset_id;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER keyword_datasets_delete AFTER DELETE ON keyword_datasets
  REFERENCING OLD TABLE AS quarry_old_datasets
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_keyword_datasets_deleted();
--> statement-breakpoint
-- Per-dataset vector index: HNSW (cosine) over the embedding cast to the dataset's dimensions,
-- partial on the dataset, so each dataset has a graph of its own size and datasets of different
-- dimensions share the table. Searches use the same expression and predicate. Above 2,000
-- dimensions (HNSW's limit for vector) the index holds half-precision vectors.
CREATE FUNCTION quarry_vector_expression(dimensions integer) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN dimensions <= 2000 THEN format('embedding::vector(%s)', dimensions)
            ELSE format('embedding::halfvec(%s)', dimensions) END;
--> statement-breakpoint
CREATE FUNCTION quarry_vector_index_name(dataset_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN 'rows_embedding_' || left(md5(dataset_id), 24);
--> statement-breakpoint
CREATE FUNCTION quarry_create_vector_index(dataset_id text, dimensions integer) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format(
    'CREATE INDEX IF NOT EXISTS %I ON rows USING hnsw ((%s) %s) WHERE dataset_id = %L',
    quarry_vector_index_name(dataset_id), quarry_vector_expression(dimensions),
    CASE WHEN dimensions <= 2000 THEN 'vector_cosine_ops' ELSE 'halfvec_cosine_ops' END,
    dataset_id);
END
$fn$;
--> statement-breakpoint
CREATE FUNCTION quarry_drop_vector_index(dataset_id text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('DROP INDEX IF EXISTS %I', quarry_vector_index_name(dataset_id));
END
$fn$;
--> statement-breakpoint
-- Datasets that exist already get their statistics and index now.
INSERT INTO keyword_datasets (dataset_id) SELECT id FROM datasets ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO keyword_postings (dataset_id, term, document_id, row_count, frequency)
SELECT r.dataset_id, u.lexeme, r.document_id, count(*), sum(coalesce(cardinality(u.positions), 1))
FROM rows r CROSS JOIN LATERAL unnest(r.fts) AS u GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO keyword_terms (dataset_id, term, row_frequency, document_frequency)
SELECT dataset_id, term, sum(row_count), count(*) FROM keyword_postings GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO keyword_documents (dataset_id, document_id, row_count, length)
SELECT dataset_id, document_id, count(*), sum(coalesce(keyword_length, 0)) FROM rows GROUP BY 1, 2;
--> statement-breakpoint
UPDATE keyword_datasets k SET
  row_count = (SELECT count(*) FROM rows r WHERE r.dataset_id = k.dataset_id AND r.keyword_length > 0),
  document_count = (SELECT count(*) FROM keyword_documents d WHERE d.dataset_id = k.dataset_id AND d.length > 0),
  total_length = (SELECT coalesce(sum(keyword_length), 0) FROM rows r WHERE r.dataset_id = k.dataset_id);
--> statement-breakpoint
SELECT quarry_create_vector_index(id, dimensions) FROM datasets;
