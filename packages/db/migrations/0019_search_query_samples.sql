CREATE TABLE "search_query_samples" (
	"dataset_id" text NOT NULL,
	"slot" smallint NOT NULL,
	"embedding" vector NOT NULL,
	"sampled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "search_query_samples_dataset_id_slot_pk" PRIMARY KEY("dataset_id","slot")
);
--> statement-breakpoint
ALTER TABLE "datasets" ADD COLUMN "ef_search_queries" text;--> statement-breakpoint
ALTER TABLE "search_query_samples" ADD CONSTRAINT "search_query_samples_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;