import { index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";

export const projects = pgTable(
  "projects",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    createdAt: createdAt(),
  },
  // GET /admin/projects lists them oldest first.
  (t) => [index("projects_created_idx").on(t.createdAt, t.id)],
);
