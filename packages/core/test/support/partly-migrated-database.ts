import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { Database } from "@quarry/db";
import { schema } from "@quarry/db";
import { EMBEDDED_EXTENSIONS, migrationsFolder } from "@quarry/local-stack";
import { drizzle as drizzleNative } from "drizzle-orm/node-postgres";
import { migrate as migrateNative } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { type TestEngine, testEngine } from "./database.ts";
import { connectNative, nativeAdminUrl } from "./native-database.ts";

/**
 * An empty database with the committed migrations applied up to `lastTag` (e.g.
 * `0016_postings_cover_frequency`) and no further, for tests of what a later migration does to
 * data stored before it: seed it, then `migrateRest()` applies the remaining migrations the way
 * `pnpm dev` and `pnpm db:migrate` do.
 */
export interface PartlyMigratedDatabase {
  db: Database;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  migrateRest(): Promise<void>;
  close(): Promise<void>;
}

export async function partlyMigratedDatabase(
  lastTag: string,
  engine: TestEngine = testEngine(),
): Promise<PartlyMigratedDatabase> {
  const partial = migrationsUpTo(lastTag);
  try {
    return engine === "native" ? await nativeDatabase(partial) : await embeddedDatabase(partial);
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
}

/**
 * The SQL of the committed migration `tag`, for a test that gives an older schema a function
 * today's code calls (and drops it again before `migrateRest()`). Only for a migration of one
 * statement: the drivers run a string of several, but not drizzle's breakpoints between them.
 */
export function migrationText(tag: string): string {
  const text = readFileSync(join(migrationsFolder(), `${tag}.sql`), "utf8");
  if (text.includes("--> statement-breakpoint")) throw new Error(`${tag} has several statements`);
  return text;
}

/** A copy of the migrations folder whose journal ends at `lastTag`. */
function migrationsUpTo(lastTag: string): string {
  const folder = mkdtempSync(join(tmpdir(), "quarry-migrations-"));
  cpSync(migrationsFolder(), folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((entry) => entry.tag === lastTag);
  if (last < 0) throw new Error(`no migration ${lastTag} in the journal`);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

async function embeddedDatabase(partial: string): Promise<PartlyMigratedDatabase> {
  const pglite = await PGlite.create({ extensions: EMBEDDED_EXTENSIONS });
  await migratePglite(drizzlePglite({ client: pglite }), { migrationsFolder: partial });
  return {
    db: drizzlePglite({ client: pglite, schema }) as unknown as Database,
    sql: async <T>(text: string, params: unknown[] = []) =>
      (await pglite.query<T>(text, params)).rows,
    migrateRest: async () => {
      await migratePglite(drizzlePglite({ client: pglite }), {
        migrationsFolder: migrationsFolder(),
      });
    },
    close: () => pglite.close(),
  };
}

async function nativeDatabase(partial: string): Promise<PartlyMigratedDatabase> {
  const adminUrl = nativeAdminUrl();
  const name = `quarry_t_${randomBytes(6).toString("hex")}`;
  const admin = connectNative(adminUrl, 1);
  await admin.pool.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const { db, pool } = connectNative(url.toString(), 2);
  const migrator = drizzleNative({ client: pool });
  await migrateNative(migrator, { migrationsFolder: partial });
  return {
    db,
    sql: async <T>(text: string, params: unknown[] = []) =>
      (await pool.query(text, params)).rows as T[],
    migrateRest: async () => {
      await migrateNative(migrator, { migrationsFolder: migrationsFolder() });
    },
    close: async () => {
      await pool.end();
      try {
        await admin.pool.query(`drop database if exists ${name} with (force)`);
      } finally {
        await admin.pool.end();
      }
    },
  };
}
