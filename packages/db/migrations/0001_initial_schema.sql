CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text,
	"email" text,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"columns" jsonb NOT NULL,
	"metadata_columns" jsonb NOT NULL,
	"embedding_model" text NOT NULL,
	"dimensions" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "documents" (
	"project_id" text NOT NULL,
	"dataset_id" text NOT NULL,
	"id" text NOT NULL,
	"filename" text,
	"url" text,
	"storage_key" text,
	"content_type" text,
	"status" text NOT NULL,
	"error" text,
	"progress" jsonb,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"chunk_size" integer,
	"chunk_overlap" integer,
	"content" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "documents_dataset_id_id_pk" PRIMARY KEY("dataset_id","id")
);
--> statement-breakpoint
CREATE TABLE "endpoint_deployments" (
	"project_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"deployment_id" integer NOT NULL,
	"config" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "endpoint_deployments_endpoint_id_deployment_id_pk" PRIMARY KEY("endpoint_id","deployment_id")
);
--> statement-breakpoint
CREATE TABLE "endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"model" text NOT NULL,
	"type" text NOT NULL,
	"prompt" text,
	"messages" jsonb,
	"temperature" real,
	"max_tokens" integer,
	"search" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"deployment_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "log_comments" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"log_id" text NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"comment" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "logs" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"deployment_id" integer NOT NULL,
	"user_id" text NOT NULL,
	"model" text NOT NULL,
	"service_model_name" text NOT NULL,
	"prompt" jsonb NOT NULL,
	"completion" text DEFAULT '' NOT NULL,
	"values" jsonb,
	"search_results" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" integer NOT NULL,
	"error" text,
	"positive_rating" boolean,
	"prompt_tokens" integer DEFAULT 0 NOT NULL,
	"completion_tokens" integer DEFAULT 0 NOT NULL,
	"prompt_cost" double precision DEFAULT 0 NOT NULL,
	"completion_cost" double precision DEFAULT 0 NOT NULL,
	"temperature" real,
	"latency_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rows" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "rows_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"project_id" text NOT NULL,
	"dataset_id" text NOT NULL,
	"document_id" text NOT NULL,
	"data" jsonb NOT NULL,
	"metadata" jsonb NOT NULL,
	"embedding" vector,
	"fts" "tsvector",
	"image_paths" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents" ADD CONSTRAINT "documents_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "endpoint_deployments" ADD CONSTRAINT "endpoint_deployments_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "endpoints" ADD CONSTRAINT "endpoints_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "log_comments" ADD CONSTRAINT "log_comments_log_id_logs_id_fk" FOREIGN KEY ("log_id") REFERENCES "public"."logs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "logs" ADD CONSTRAINT "logs_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rows" ADD CONSTRAINT "rows_dataset_id_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_idx" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_project_idx" ON "api_keys" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "datasets_project_created_idx" ON "datasets" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "documents_project_dataset_created_idx" ON "documents" USING btree ("project_id","dataset_id","created_at");--> statement-breakpoint
CREATE INDEX "endpoints_project_created_idx" ON "endpoints" USING btree ("project_id","created_at","id");--> statement-breakpoint
CREATE INDEX "log_comments_log_idx" ON "log_comments" USING btree ("log_id","created_at");--> statement-breakpoint
CREATE INDEX "logs_endpoint_created_idx" ON "logs" USING btree ("endpoint_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "rows_dataset_id_idx" ON "rows" USING btree ("dataset_id","id");--> statement-breakpoint
CREATE INDEX "rows_dataset_document_idx" ON "rows" USING btree ("dataset_id","document_id","id");--> statement-breakpoint
CREATE INDEX "rows_metadata_gin_idx" ON "rows" USING gin ("metadata" jsonb_path_ops);--> statement-breakpoint
CREATE INDEX "rows_fts_gin_idx" ON "rows" USING gin ("fts");