import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema/index.ts";

export * from "./schema/index.ts";
export * as schema from "./schema/index.ts";

/**
 * The database as the domain sees it: any Drizzle Postgres driver (Neon serverless in
 * Workers, PGlite in tests and tools). The driver is chosen at the edge.
 */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
