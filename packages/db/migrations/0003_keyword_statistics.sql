CREATE TABLE "keyword_datasets" (
	"dataset_id" text PRIMARY KEY NOT NULL,
	"row_count" bigint DEFAULT 0 NOT NULL,
	"document_count" bigint DEFAULT 0 NOT NULL,
	"total_length" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "keyword_documents" (
	"dataset_id" text NOT NULL,
	"document_id" text NOT NULL,
	"row_count" integer NOT NULL,
	"length" bigint NOT NULL,
	CONSTRAINT "keyword_documents_dataset_id_document_id_pk" PRIMARY KEY("dataset_id","document_id")
);
--> statement-breakpoint
CREATE TABLE "keyword_postings" (
	"dataset_id" text NOT NULL,
	"term" text NOT NULL,
	"document_id" text NOT NULL,
	"row_count" integer NOT NULL,
	"frequency" integer NOT NULL,
	CONSTRAINT "keyword_postings_dataset_id_term_document_id_pk" PRIMARY KEY("dataset_id","term","document_id")
);
--> statement-breakpoint
CREATE TABLE "keyword_terms" (
	"dataset_id" text NOT NULL,
	"term" text NOT NULL,
	"row_frequency" integer NOT NULL,
	"document_frequency" integer NOT NULL,
	CONSTRAINT "keyword_terms_dataset_id_term_pk" PRIMARY KEY("dataset_id","term")
);
--> statement-breakpoint
ALTER TABLE "rows" ADD COLUMN "keyword_length" integer GENERATED ALWAYS AS (quarry_tsvector_length(fts)) STORED;--> statement-breakpoint
ALTER TABLE "keyword_datasets" ADD CONSTRAINT "keyword_datasets_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "keyword_documents_empty_idx" ON "keyword_documents" USING btree ("dataset_id") WHERE "keyword_documents"."row_count" <= 0;