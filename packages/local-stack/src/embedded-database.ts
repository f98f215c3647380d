import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { vector } from "@electric-sql/pglite-pgvector";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";

/** The committed drizzle-kit migrations of @quarry/db. */
export function migrationsFolder(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@quarry/db/package.json")), "migrations");
}

/** The extensions the migrations create: pgvector, and btree_gin for (dataset, metadata) GIN. */
export const EMBEDDED_EXTENSIONS = { vector, btree_gin };

/**
 * Opens (or creates) the embedded Postgres with pgvector and applies pending migrations.
 * `dataDir` undefined means in memory (tests).
 */
export async function openEmbeddedDatabase(dataDir?: string): Promise<PGlite> {
  const db = await PGlite.create({ dataDir, extensions: EMBEDDED_EXTENSIONS });
  await migrate(drizzle({ client: db }), { migrationsFolder: migrationsFolder() });
  return db;
}
