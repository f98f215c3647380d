import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";

/** A hand-written query as Postgres receives it: `$n` placeholders and their values. */
export interface QueryText {
  text: string;
  params: unknown[];
}

const dialect = new PgDialect();

/**
 * Renders a query the way `db.execute` does (drizzle's Postgres dialect), for code that sends
 * it through a driver of its own (`pg`'s `client.query(text, params)`).
 */
export function queryText(query: SQL): QueryText {
  const { sql, params } = dialect.sqlToQuery(query);
  return { text: sql, params };
}
