import { PGlite } from "@electric-sql/pglite";
import type { Database } from "@quarry/db";
import { schema } from "@quarry/db";
import { EMBEDDED_EXTENSIONS, openEmbeddedDatabase } from "@quarry/local-stack";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, beforeAll } from "vitest";
import { createNativeDatabase, NATIVE_URL_VARIABLE, nativeAdminUrl } from "./native-database.ts";

/**
 * The engine the domain tier runs on. Each vitest project says which (`QUARRY_TEST_ENGINE`:
 * `pglite` for `domain`, `native` for `domain-native`); run outside a project, a set
 * `QUARRY_TEST_DATABASE_URL` means native.
 */
export type TestEngine = "pglite" | "native";

export function testEngine(): TestEngine {
  const chosen = process.env.QUARRY_TEST_ENGINE;
  if (chosen === "pglite" || chosen === "native") return chosen;
  if (chosen) throw new Error(`QUARRY_TEST_ENGINE must be "pglite" or "native", not "${chosen}"`);
  return process.env[NATIVE_URL_VARIABLE] ? "native" : "pglite";
}

/** A fresh, migrated database for one test file, on the engine the run chose. */
export interface FreshDatabase {
  db: Database;
  engine: TestEngine;
  /** One statement with bound parameters (`$1`…), its rows as the driver returns them. */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Closes the connections; on native the database is dropped too. */
  close(): Promise<void>;
  /**
   * Native only: the database's URL, to open more pools (e.g. one per concurrent writer, so
   * their transactions really overlap).
   */
  url?: string;
  /** PGlite only: the instance, for the few tests that need PGlite itself. */
  pglite?: PGlite;
}

let template: Promise<Blob> | undefined;

/**
 * A fresh, migrated Postgres for one test file. PGlite: in memory; creating and migrating one
 * takes seconds, so the first one is dumped and the rest are loaded from the dump. Native:
 * a database cloned from a migrated template on `QUARRY_TEST_DATABASE_URL`'s server.
 */
export async function freshDatabase(
  engine: TestEngine = testEngine(),
  options: { maxConnections?: number } = {},
): Promise<FreshDatabase> {
  if (engine === "native") {
    nativeAdminUrl(); // fails with what to set before anything else happens
    const native = await createNativeDatabase(options.maxConnections);
    return {
      db: native.db,
      engine,
      url: native.url,
      sql: async <T>(text: string, params: unknown[] = []) =>
        (await native.pool.query(text, params)).rows as T[],
      close: native.close,
    };
  }
  template ??= openEmbeddedDatabase().then(async (seed) => {
    const dump = await seed.dumpDataDir("none");
    await seed.close();
    return dump;
  });
  const pglite = await PGlite.create({
    loadDataDir: await template,
    extensions: EMBEDDED_EXTENSIONS,
  });
  return {
    db: drizzle({ client: pglite, schema }) as unknown as Database,
    engine,
    pglite,
    sql: async <T>(text: string, params: unknown[] = []) =>
      (await pglite.query<T>(text, params)).rows,
    close: () => pglite.close(),
  };
}

/** The calling test file's fresh database, readable from its hooks and tests. */
export interface FileDatabase {
  readonly db: Database;
  readonly fresh: FreshDatabase;
}

/**
 * Gives the calling test file a fresh database before its tests and closes it after them.
 * The handle is read lazily, so `const database = useFreshDatabase();` stands at the top of a
 * file while the database itself opens in `beforeAll`.
 */
export function useFreshDatabase(): FileDatabase {
  let opened: FreshDatabase | undefined;
  beforeAll(async () => {
    opened = await freshDatabase();
  });
  afterAll(() => opened?.close());
  const current = (): FreshDatabase => {
    if (!opened)
      throw new Error("the fresh database opens in beforeAll: read it in a hook or test");
    return opened;
  };
  return {
    get db() {
      return current().db;
    },
    get fresh() {
      return current();
    },
  };
}
