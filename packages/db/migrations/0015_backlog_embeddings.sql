-- The backlog carries a copy of each waiting row's embedding, so that searches rank it from
-- this narrow table instead of fetching each vector from `rows`' TOAST (8× faster over 1,600
-- waiting rows, native PostgreSQL; schema/row-vectors.ts). The copy is written and kept equal
-- to the row's by `quarry_row_vectors_changed`, in the writing statement.
ALTER TABLE "vector_backlog" ADD COLUMN "embedding" vector;
--> statement-breakpoint
UPDATE vector_backlog b SET embedding = r.embedding
FROM rows r WHERE r.id = b.row_id AND r.dataset_id = b.dataset_id;
--> statement-breakpoint
-- An entry without a row, or without an embedding, breaks the triggers' invariant and was never
-- searchable (searches joined `rows` and skipped it): nothing is lost by dropping it.
DELETE FROM vector_backlog WHERE embedding IS NULL;
--> statement-breakpoint
ALTER TABLE "vector_backlog" ALTER COLUMN "embedding" SET NOT NULL;
--> statement-breakpoint
-- As in migration `deferred_vector_index`, with the embedding copied into the backlog:
-- - a new row with an embedding joins the backlog with it;
-- - a row whose embedding changed leaves the graph and (if it still has one) joins the
--   backlog, or, already waiting there, has its copy replaced. The backlog write comes first,
--   so on a server that runs writers concurrently it waits for an indexer that is moving the
--   same row (which locks the entry), and the delete from the graph then sees its insert;
-- - a deleted row leaves both.
CREATE OR REPLACE FUNCTION quarry_row_vectors_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_backlog (dataset_id, row_id, embedding)
    SELECT n.dataset_id, n.id, n.embedding FROM quarry_new_rows n WHERE n.embedding IS NOT NULL;
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM indexed_vectors v USING quarry_old_rows o WHERE v.row_id = o.id;
    DELETE FROM vector_backlog b USING quarry_old_rows o
    WHERE b.dataset_id = o.dataset_id AND b.row_id = o.id;
  ELSE
    INSERT INTO vector_backlog AS b (dataset_id, row_id, embedding)
    SELECT n.dataset_id, n.id, n.embedding
    FROM quarry_new_rows n JOIN quarry_old_rows o ON o.id = n.id
    WHERE n.embedding IS NOT NULL
      AND (o.embedding IS DISTINCT FROM n.embedding OR o.dataset_id <> n.dataset_id)
    ORDER BY 1, 2
    ON CONFLICT (dataset_id, row_id) DO UPDATE SET embedding = excluded.embedding;
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
