import { type AnyPgColumn, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Column builders the tables share, so a column that means the same thing is declared the
 * same way everywhere. Each call returns a new builder: drizzle-kit sees exactly the columns it
 * saw when they were written out per table (the generated SQL is unchanged).
 */

/** When the record was written: set by the database. */
export function createdAt() {
  return timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
}

/** When the record last changed: set on insert, moved forward by the domain's updates. */
export function updatedAt() {
  return timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
}

/** The id of the record this one belongs to: required, and deleted with its parent. */
export function belongsTo<TName extends string>(name: TName, parent: () => AnyPgColumn) {
  return text(name).notNull().references(parent, { onDelete: "cascade" });
}
