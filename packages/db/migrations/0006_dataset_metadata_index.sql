DROP INDEX "rows_metadata_gin_idx";--> statement-breakpoint
CREATE INDEX "rows_dataset_metadata_gin_idx" ON "rows" USING gin ("dataset_id","metadata" jsonb_path_ops);