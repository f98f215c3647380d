import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsTo, createdAt } from "./columns.ts";
import { projects } from "./projects.ts";

/** Project API keys. Only a SHA-256 hash of the secret is stored; the secret is shown once. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    projectId: belongsTo("project_id", () => projects.id),
    name: text("name"),
    email: text("email"),
    /** hex SHA-256 of the whole key; looked up by equality, then compared in constant time */
    keyHash: text("key_hash").notNull(),
    /** the first characters of the key, safe to show in listings */
    prefix: text("prefix").notNull(),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_idx").on(t.keyHash),
    index("api_keys_project_idx").on(t.projectId),
  ],
);
