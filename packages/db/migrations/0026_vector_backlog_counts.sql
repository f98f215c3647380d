CREATE TABLE "vector_backlog_counts" (
	"dataset_id" text NOT NULL,
	"pending" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "vector_backlog_counts_dataset_idx" ON "vector_backlog_counts" USING btree ("dataset_id");--> statement-breakpoint
-- How many rows wait in each dataset's backlog, kept as appended changes (schema/row-vectors.ts):
-- one row per dataset per statement that adds to or takes from `vector_backlog`, whichever
-- path wrote it (a row write's trigger, an indexer's move, a dataset's deletion). Appending
-- takes no lock another writer waits for; `quarry_fold_vector_backlog_counts` sums them later.
-- An `INSERT … ON CONFLICT DO UPDATE` (a waiting row re-embedded) puts only the rows it
-- inserted in the insert's transition table: a replaced copy is counted once.
CREATE FUNCTION quarry_vector_backlog_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_backlog_counts (dataset_id, pending)
    SELECT n.dataset_id, count(*) FROM quarry_backlog_added n GROUP BY n.dataset_id;
  ELSE
    INSERT INTO vector_backlog_counts (dataset_id, pending)
    SELECT o.dataset_id, -count(*) FROM quarry_backlog_removed o GROUP BY o.dataset_id;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER vector_backlog_insert AFTER INSERT ON vector_backlog
  REFERENCING NEW TABLE AS quarry_backlog_added
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_vector_backlog_changed();
--> statement-breakpoint
CREATE TRIGGER vector_backlog_delete AFTER DELETE ON vector_backlog
  REFERENCING OLD TABLE AS quarry_backlog_removed
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_vector_backlog_changed();
--> statement-breakpoint
-- A deleted dataset's counts go with it (no foreign key: its check would lock the dataset's row
-- from the indexer's move, which holds backlog entries a dataset's deletion waits for).
CREATE FUNCTION quarry_vector_backlog_datasets_deleted() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM vector_backlog_counts c USING quarry_old_datasets o WHERE c.dataset_id = o.id;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER datasets_vector_backlog_counts_delete AFTER DELETE ON datasets
  REFERENCING OLD TABLE AS quarry_old_datasets
  FOR EACH STATEMENT EXECUTE FUNCTION quarry_vector_backlog_datasets_deleted();
--> statement-breakpoint
-- Folds a dataset's appended counts into one row and returns the dataset's count. Readers sum
-- the rows in one snapshot, so folding changes no figure anyone reads. Never waits: a dataset
-- already being folded by another caller, or being deleted, returns its sum unfolded. The
-- dataset's row is held first (`FOR KEY SHARE`, as `quarry_fold_keyword_deltas` does): a
-- deletion that locks it afterwards waits for the fold, and one that locked it first is
-- skipped. Unheld, a deletion's trigger waited for a count row the fold held, and the fold's
-- summed row, inserted after that trigger's snapshot, outlived its dataset (forced in
-- core's test/concurrency/vector-races.test.ts).
CREATE FUNCTION quarry_fold_vector_backlog_counts(target_dataset text) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
  total bigint;
BEGIN
  PERFORM 1 FROM datasets WHERE id = target_dataset FOR KEY SHARE SKIP LOCKED;
  IF NOT FOUND
     OR NOT pg_try_advisory_xact_lock(hashtext('quarry_fold_vector_backlog_counts'), hashtext(target_dataset)) THEN
    SELECT coalesce(sum(pending), 0) INTO total FROM vector_backlog_counts WHERE dataset_id = target_dataset;
    RETURN total;
  END IF;
  WITH moved AS (
    DELETE FROM vector_backlog_counts WHERE dataset_id = target_dataset RETURNING pending
  ),
  summed AS (
    SELECT coalesce(sum(pending), 0) AS pending FROM moved
  ),
  kept AS (
    INSERT INTO vector_backlog_counts (dataset_id, pending)
    SELECT target_dataset, s.pending FROM summed s WHERE s.pending <> 0
  )
  SELECT s.pending INTO total FROM summed s;
  RETURN total;
END
$fn$;
--> statement-breakpoint
-- The backlog as it stands, counted after the triggers exist: CREATE TRIGGER locks out writers
-- of `vector_backlog` until this commits, so no change is counted twice or missed.
INSERT INTO vector_backlog_counts (dataset_id, pending)
SELECT dataset_id, count(*) FROM vector_backlog GROUP BY dataset_id;
