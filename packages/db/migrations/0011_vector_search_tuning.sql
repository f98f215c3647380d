ALTER TABLE "datasets" ADD COLUMN "ef_search" integer;--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "ef_search_recall" real;--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "ef_search_rows" integer;--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "ef_search_measured_at" timestamp with time zone;