import { index, integer, jsonb, pgTable, primaryKey, real, text } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, updatedAt } from "./columns.ts";
import { projects } from "./projects.ts";

export type EndpointType = "chat" | "completion";
export interface ChatMessageTemplate {
  role: "system" | "user" | "assistant";
  content: string;
}
export interface SearchBlock {
  dataset_id: string;
  variable: string;
  query: string;
  top_k?: number;
  filter?: Record<string, unknown>;
  alpha?: number;
}
/** What a deployment freezes: everything a completion needs to run. */
export interface EndpointConfig {
  model: string;
  type: EndpointType;
  prompt: string | null;
  messages: ChatMessageTemplate[] | null;
  temperature: number | null;
  maxTokens: number | null;
  search: SearchBlock[];
}

export const endpoints = pgTable(
  "endpoints",
  {
    id: text("id").primaryKey(),
    projectId: belongsTo("project_id", () => projects.id),
    name: text("name").notNull(),
    model: text("model").notNull(),
    type: text("type").$type<EndpointType>().notNull(),
    prompt: text("prompt"),
    messages: jsonb("messages").$type<ChatMessageTemplate[] | null>(),
    temperature: real("temperature"),
    maxTokens: integer("max_tokens"),
    search: jsonb("search").$type<SearchBlock[]>().notNull().default([]),
    deploymentId: integer("deployment_id").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("endpoints_project_created_idx").on(t.projectId, t.createdAt, t.id)],
);

/** Every create or update of an endpoint is a deployment; logs point at the one that served them. */
export const endpointDeployments = pgTable(
  "endpoint_deployments",
  {
    projectId: text("project_id").notNull(),
    endpointId: belongsTo("endpoint_id", () => endpoints.id),
    deploymentId: integer("deployment_id").notNull(),
    config: jsonb("config").$type<EndpointConfig>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.deploymentId] })],
);
