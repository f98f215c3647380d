-- E7's filters (rating, user, status) read their own logs newest first instead of every log of the
-- endpoint. Like logs_endpoint_created_idx, the time columns are DESC NULLS LAST: E7 and the log
-- export order by exactly that, or the planner sorts every matching log (issue 16).
CREATE INDEX "logs_endpoint_rating_created_idx" ON "logs" USING btree ("endpoint_id","positive_rating","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "logs_endpoint_user_created_idx" ON "logs" USING btree ("endpoint_id","user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "logs_endpoint_status_created_idx" ON "logs" USING btree ("endpoint_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "projects_created_idx" ON "projects" USING btree ("created_at","id");