import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "@quarry/db";
import { schema } from "@quarry/db";
import { migrationsFolder } from "@quarry/local-stack";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";

/**
 * Test databases on a native PostgreSQL server (`QUARRY_TEST_DATABASE_URL`, a superuser URL of
 * a server with pgvector >= 0.8). The committed migrations are applied once to a template
 * database named after their content; each test file then gets `CREATE DATABASE … TEMPLATE`
 * (a file copy, tens of milliseconds) and drops it afterwards.
 *
 * The driver is node-postgres with a pool, so `db.transaction` holds one connection for the
 * whole transaction and concurrent transactions really overlap, as on Neon.
 */

export const NATIVE_URL_VARIABLE = "QUARRY_TEST_DATABASE_URL";

const TEMPLATE_PREFIX = "quarry_tpl_";
const TEST_PREFIX = "quarry_t_";
const READY_COMMENT = "quarry test template: migrations applied";
/** Serialises template builds across the test workers of one run (and across runs). */
const TEMPLATE_LOCK_KEY = 0x71_75_61_72; // "quar"

export function nativeAdminUrl(): string {
  const url = process.env[NATIVE_URL_VARIABLE];
  if (!url) {
    throw new Error(
      `${NATIVE_URL_VARIABLE} is not set: the native test tier needs a PostgreSQL server with ` +
        "pgvector >= 0.8 and a superuser URL, e.g. " +
        `${NATIVE_URL_VARIABLE}=postgres://postgres@127.0.0.1:5432/postgres ` +
        "(no fallback to PGlite: this tier exists to run on the engine production uses)",
    );
  }
  return url;
}

/** A node-postgres Drizzle database with its own pool; `max` bounds the pool's connections. */
export function connectNative(url: string, max = 4): { db: Database; pool: NativePool } {
  const db = drizzle({ connection: { connectionString: url, max }, schema });
  // An idle connection that the server ends (the test database dropped WITH (FORCE) while a
  // connection was still closing) reports on the pool; a query in flight still rejects.
  db.$client.on("error", (error: Error & { code?: string }) => {
    if (error.code !== "57P01") console.warn("idle test connection failed:", error);
  });
  return { db: db as unknown as Database, pool: db.$client };
}

export type NativePool = ReturnType<typeof drizzle>["$client"];

interface Queryable {
  query<R extends Record<string, unknown>>(
    text: string,
    params?: unknown[],
  ): Promise<{ rows: R[] }>;
}

function withDatabase(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

/** The template's name changes whenever a migration does, so a stale template is never used. */
function templateName(): string {
  const folder = migrationsFolder();
  const hash = createHash("sha256");
  const files = readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) {
    hash.update(file.slice(folder.length));
    hash.update(readFileSync(file));
  }
  return TEMPLATE_PREFIX + hash.digest("hex").slice(0, 16);
}

/** Fails with a message that says what to do when the server lacks pgvector >= 0.8. */
export async function checkNativeServer(pool: NativePool): Promise<void> {
  const { rows } = await pool.query<{ version: string | null; server: string }>(
    `select (select default_version from pg_available_extensions where name = 'vector') as version,
            current_setting('server_version') as server`,
  );
  const version = rows[0]?.version ?? null;
  const [major = 0, minor = 0] = (version ?? "0.0").split(".").map(Number);
  if (version === null || major < 0 || (major === 0 && minor < 8)) {
    throw new Error(
      `the PostgreSQL ${rows[0]?.server} at ${NATIVE_URL_VARIABLE} has ` +
        (version === null ? "no pgvector" : `pgvector ${version}`) +
        ": Quarry needs pgvector >= 0.8 (pnpm db:native provisions one; or Docker's pgvector/pgvector image)",
    );
  }
}

let template: Promise<string> | undefined;

/**
 * Creates (once per server and migration set) the migrated template database and returns its
 * name. Test workers race here: a session advisory lock makes one build it while the others
 * wait, and the database comment marks a finished build, so a build that crashed half-way is
 * redone rather than cloned.
 */
export function nativeTemplate(adminUrl = nativeAdminUrl()): Promise<string> {
  template ??= buildTemplate(adminUrl);
  return template;
}

async function buildTemplate(adminUrl: string): Promise<string> {
  const name = templateName();
  const { pool } = connectNative(adminUrl, 1);
  try {
    await checkNativeServer(pool);
    const client = await pool.connect();
    try {
      await client.query("select pg_advisory_lock($1)", [TEMPLATE_LOCK_KEY]);
      const found = await client.query<{ comment: string | null }>(
        "select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1",
        [name],
      );
      if (found.rows[0]?.comment?.startsWith(READY_COMMENT)) return name;
      await client.query(`drop database if exists ${name} with (force)`);
      await client.query(`create database ${name}`);
      const migrator = drizzle({
        connection: { connectionString: withDatabase(adminUrl, name), max: 1 },
      });
      try {
        await migrate(migrator, { migrationsFolder: migrationsFolder() });
      } finally {
        // No session may stay connected to a template that is about to be cloned.
        await migrator.$client.end();
      }
      await client.query(`comment on database ${name} is '${READY_COMMENT} at ${Date.now()}'`);
      await dropStaleTemplates(client, name);
      return name;
    } finally {
      await client.query("select pg_advisory_unlock($1)", [TEMPLATE_LOCK_KEY]).catch(() => {});
      client.release();
    }
  } finally {
    await pool.end();
  }
}

/**
 * Templates of other migration sets, built more than a day ago: another checkout (a branch, CI)
 * may still be cloning a recent one, and a template in use is left alone anyway.
 */
async function dropStaleTemplates(client: Queryable, current: string): Promise<void> {
  const stale = await client.query<{ datname: string; comment: string | null }>(
    `select datname, shobj_description(oid, 'pg_database') as comment from pg_database
     where datname like $1 and datname <> $2`,
    [`${TEMPLATE_PREFIX}%`, current],
  );
  for (const { datname, comment } of stale.rows) {
    const builtAt = Number(comment?.match(/ at (\d+)$/)?.[1] ?? 0);
    if (Date.now() - builtAt < 24 * 3600_000) continue;
    await client.query(`drop database if exists ${datname}`).catch(() => {});
  }
}

export interface NativeDatabase {
  name: string;
  /** The URL of this database, for extra pools (e.g. one per concurrent writer). */
  url: string;
  db: Database;
  pool: NativePool;
  /** Closes the pool and drops the database. */
  close(): Promise<void>;
}

/** A fresh database cloned from the migrated template, with a pool of `max` connections. */
export async function createNativeDatabase(max = 4): Promise<NativeDatabase> {
  const adminUrl = nativeAdminUrl();
  const source = await nativeTemplate(adminUrl);
  const name = TEST_PREFIX + randomBytes(6).toString("hex");
  const admin = connectNative(adminUrl, 1);
  try {
    await admin.pool.query(`create database ${name} template ${source}`);
  } finally {
    await admin.pool.end();
  }
  const url = withDatabase(adminUrl, name);
  const { db, pool } = connectNative(url, max);
  return {
    name,
    url,
    db,
    pool,
    close: async () => {
      await pool.end();
      const drop = connectNative(adminUrl, 1);
      try {
        await drop.pool.query(`drop database if exists ${name} with (force)`);
      } finally {
        await drop.pool.end();
      }
    },
  };
}
