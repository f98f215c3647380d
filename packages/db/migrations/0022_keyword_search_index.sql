-- The keyword searches' index (hybrid and keyword ranking, core search/keyword-sql.ts
-- `keywordMatch`): GIN over the row's dataset and its tsvector, the dataset written
-- `dataset_id || ''` and so queried. Two plans it replaces, both reading a dataset's rows to
-- find the few with a query's terms:
-- - a dataset the statistics did not know yet (created or filled since `rows` was last
--   analyzed) is estimated at one row, and Postgres read all of it through the dataset's
--   btree, testing each row's tsvector: 31 of a 56 ms hybrid search under `pnpm bench load`
--   (6,230 rows read for 859). No btree covers `dataset_id || ''`, so that plan is gone;
-- - a dataset it knew was ANDed from two bitmaps, the terms' (`rows_fts_gin_idx`) and all of
--   the dataset's rows (`rows_dataset_metadata_gin_idx`'s dataset_id column): 1 ms at 12k rows
--   (2.6 while the terms' index had 2,765 entries pending), growing with the dataset. One scan
--   of this index takes 0.13 ms.
-- Nothing else searched `fts`, so its own index goes.
DROP INDEX "rows_fts_gin_idx";--> statement-breakpoint
CREATE INDEX "rows_keyword_gin_idx" ON "rows" USING gin (("dataset_id" || ''),"fts");
