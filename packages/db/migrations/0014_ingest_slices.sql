-- The slices of an upload being written, in parts that commit on their own and run at once
-- (core ingestion/slice-writes.ts; the lock order: packages/db/CONCURRENCY.md).
CREATE TABLE "ingest_slice_parts" (
	"dataset_id" text NOT NULL,
	"document_id" text NOT NULL,
	"position" bigint NOT NULL,
	"part" integer NOT NULL,
	CONSTRAINT "ingest_slice_parts_dataset_id_document_id_position_part_pk" PRIMARY KEY("dataset_id","document_id","position","part")
);
--> statement-breakpoint
CREATE TABLE "ingest_slices" (
	"dataset_id" text NOT NULL,
	"document_id" text NOT NULL,
	"position" bigint NOT NULL,
	"row_ids" bigint[] NOT NULL,
	CONSTRAINT "ingest_slices_dataset_id_document_id_position_pk" PRIMARY KEY("dataset_id","document_id","position")
);
--> statement-breakpoint
ALTER TABLE "ingest_slice_parts" ADD CONSTRAINT "ingest_slice_parts_slice_fk" FOREIGN KEY ("dataset_id","document_id","position") REFERENCES "public"."ingest_slices"("dataset_id","document_id","position") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ingest_slices" ADD CONSTRAINT "ingest_slices_document_fk" FOREIGN KEY ("dataset_id","document_id") REFERENCES "public"."documents"("dataset_id","id") ON DELETE cascade ON UPDATE no action;