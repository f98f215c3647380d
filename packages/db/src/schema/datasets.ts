import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./projects.ts";

export type DatasetKind = "standard" | "hybrid";
export interface ColumnDefinition {
  name: string;
  type: "text";
  embed: boolean;
}
export type MetadataColumnType = "string" | "number" | "boolean" | "string[]";
export interface MetadataColumnDefinition {
  name: string;
  type: MetadataColumnType;
}

export const datasets = pgTable(
  "datasets",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    kind: text("kind").$type<DatasetKind>().notNull(),
    columns: jsonb("columns").$type<ColumnDefinition[]>().notNull(),
    metadataColumns: jsonb("metadata_columns").$type<MetadataColumnDefinition[]>().notNull(),
    embeddingModel: text("embedding_model").notNull(),
    dimensions: integer("dimensions").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index("datasets_project_created_idx").on(t.projectId, t.createdAt, t.id)],
);
