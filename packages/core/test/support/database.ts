import { PGlite } from "@electric-sql/pglite";
import type { Database } from "@quarry/db";
import { schema } from "@quarry/db";
import { EMBEDDED_EXTENSIONS, openEmbeddedDatabase } from "@quarry/local-stack";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll } from "vitest";

let template: Promise<Blob> | undefined;

/**
 * A fresh, migrated in-memory Postgres for one test file. Creating and migrating a PGlite
 * database takes seconds, so the first one is dumped and the rest are loaded from the dump.
 */
export async function freshDatabase(): Promise<{ db: Database; pglite: PGlite }> {
  template ??= openEmbeddedDatabase().then(async (seed) => {
    const dump = await seed.dumpDataDir("none");
    await seed.close();
    return dump;
  });
  const pglite = await PGlite.create({
    loadDataDir: await template,
    extensions: EMBEDDED_EXTENSIONS,
  });
  return { db: drizzle({ client: pglite, schema }) as unknown as Database, pglite };
}

/**
 * Gives the calling test file a fresh database before its tests (`use` receives it) and
 * closes it after them.
 */
export function useFreshDatabase(use: (db: Database) => void): void {
  let pglite: PGlite | undefined;
  beforeAll(async () => {
    const fresh = await freshDatabase();
    pglite = fresh.pglite;
    use(fresh.db);
  });
  afterAll(() => pglite?.close());
}
