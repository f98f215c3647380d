import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  text,
} from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./columns.ts";
import { endpoints } from "./endpoints.ts";

/** One row per completion (E4), including failed and abandoned ones. */
export const logs = pgTable(
  "logs",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    endpointId: belongsTo("endpoint_id", () => endpoints.id),
    deploymentId: integer("deployment_id").notNull(),
    /** the API key that called, or the `user` string the caller passed */
    userId: text("user_id").notNull(),
    model: text("model").notNull(),
    serviceModelName: text("service_model_name").notNull(),
    prompt: jsonb("prompt").notNull(),
    completion: text("completion").notNull().default(""),
    values: jsonb("values").$type<Record<string, unknown> | null>(),
    searchResults: jsonb("search_results").$type<unknown[]>().notNull().default([]),
    status: integer("status").notNull(),
    error: text("error"),
    positiveRating: boolean("positive_rating"),
    promptTokens: integer("prompt_tokens").notNull().default(0),
    completionTokens: integer("completion_tokens").notNull().default(0),
    promptCost: doublePrecision("prompt_cost").notNull().default(0),
    completionCost: doublePrecision("completion_cost").notNull().default(0),
    temperature: real("temperature"),
    latencyMs: integer("latency_ms"),
    createdAt: createdAt(),
  },
  (t) => [
    index("logs_endpoint_created_idx").on(t.endpointId, t.createdAt.desc(), t.id.desc()),
    // E7's filters (docs/api.md#e7-list-logs): a rating, a user or a status, newest first.
    index("logs_endpoint_rating_created_idx").on(
      t.endpointId,
      t.positiveRating,
      t.createdAt.desc(),
      t.id.desc(),
    ),
    index("logs_endpoint_user_created_idx").on(
      t.endpointId,
      t.userId,
      t.createdAt.desc(),
      t.id.desc(),
    ),
    index("logs_endpoint_status_created_idx").on(
      t.endpointId,
      t.status,
      t.createdAt.desc(),
      t.id.desc(),
    ),
  ],
);

export const logComments = pgTable(
  "log_comments",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    logId: belongsTo("log_id", () => logs.id),
    name: text("name").notNull(),
    email: text("email").notNull(),
    comment: text("comment").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("log_comments_log_idx").on(t.logId, t.createdAt)],
);
