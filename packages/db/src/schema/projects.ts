import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const projects = pgTable(
  "projects",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  // GET /admin/projects lists them oldest first.
  (t) => [index("projects_created_idx").on(t.createdAt, t.id)],
);
