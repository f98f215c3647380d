import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { migrationsFolder } from "../embedded-database.ts";

/** The pgvector Quarry needs: iterative index scans (`hnsw.iterative_scan`) came in 0.8. */
export const MIN_PGVECTOR = "0.8.0";

/** How to get a PostgreSQL with pgvector >= 0.8, for the messages that refuse one. */
const HOW_TO_GET_ONE = [
  "Get one with:",
  "  pnpm db:native   (a local PostgreSQL with pgvector, set up by this repo)",
  "  docker run -d -p 5432:5432 -e POSTGRES_PASSWORD=postgres pgvector/pgvector:pg17",
  "    then DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/postgres",
  "  or a Neon database (pgvector included): its direct connection string",
  "Or unset DATABASE_URL to run on the embedded PGlite.",
].join("\n");

/** `postgres://user:***@host/db`: a connection string fit to print. */
export function maskDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(a DATABASE_URL that is not a URL)";
  }
}

/** Compares dotted versions numerically ("0.10.0" > "0.8.1"); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split(".").map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/**
 * Why a server's pgvector will not do, or undefined when it will: `available` is the version
 * `CREATE EXTENSION vector` would install (pg_available_extensions.default_version, null when
 * pgvector is not installed on the server), `installed` the database's own (null if none).
 */
export function pgvectorProblem(
  url: string,
  versions: { available: string | null; installed: string | null },
): string | undefined {
  const where = maskDatabaseUrl(url);
  const { available, installed } = versions;
  if (installed !== null) {
    if (compareVersions(installed, MIN_PGVECTOR) >= 0) return undefined;
    const update =
      available !== null && compareVersions(available, MIN_PGVECTOR) >= 0
        ? `run \`ALTER EXTENSION vector UPDATE\` in that database (the server has ${available})`
        : "install pgvector >= 0.8 on the server, then run `ALTER EXTENSION vector UPDATE`";
    return `${where} has pgvector ${installed}; Quarry needs pgvector >= ${MIN_PGVECTOR}: ${update}.\n${HOW_TO_GET_ONE}`;
  }
  if (available === null) {
    return `${where} has no pgvector extension; Quarry needs pgvector >= ${MIN_PGVECTOR}.\n${HOW_TO_GET_ONE}`;
  }
  if (compareVersions(available, MIN_PGVECTOR) < 0) {
    return `${where} offers pgvector ${available}; Quarry needs pgvector >= ${MIN_PGVECTOR}.\n${HOW_TO_GET_ONE}`;
  }
  return undefined;
}

export class NativeDatabaseError extends Error {}

/**
 * Readies a native PostgreSQL for the stack: connects, refuses a server without pgvector >=
 * 0.8 (saying how to get one), and applies the committed migrations, as `pnpm db:migrate`
 * does. Returns the pgvector version the database then has.
 */
export async function prepareNativeDatabase(url: string): Promise<{ pgvectorVersion: string }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A server that drops the connection mid-way must reject the awaited call, not crash.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new NativeDatabaseError(
      `cannot connect to DATABASE_URL ${maskDatabaseUrl(url)}: ${error instanceof Error ? error.message : error}\n${HOW_TO_GET_ONE}`,
    );
  }
  try {
    const versions = await pgvectorVersions(client);
    const problem = pgvectorProblem(url, versions);
    if (problem) throw new NativeDatabaseError(problem);
    await migrate(drizzle({ client }), { migrationsFolder: migrationsFolder() });
    const after = await pgvectorVersions(client);
    return { pgvectorVersion: after.installed ?? after.available ?? "?" };
  } finally {
    await client.end().catch(() => {});
  }
}

async function pgvectorVersions(client: pg.Client) {
  const { rows } = await client.query<{ available: string | null; installed: string | null }>(
    `SELECT (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS available,
            (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed`,
  );
  return rows[0] ?? { available: null, installed: null };
}

export interface ScratchDatabase {
  /** the new database's connection string (the server's, with its name) */
  url: string;
  name: string;
  /** drops it, ending whatever connections are still open to it */
  drop(): Promise<void>;
}

/**
 * A fresh, empty database on a native server (`serverUrl` names any database the role can
 * connect to, and the role may CREATE DATABASE), for a test run that must not see another's
 * data: `<prefix><random>`.
 */
export async function createScratchDatabase(
  serverUrl: string,
  prefix: string,
): Promise<ScratchDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) {
    throw new Error(`a database name prefix is lower-case letters, digits and _: "${prefix}"`);
  }
  const name = `${prefix}${randomBytes(6).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    client.on("error", () => {});
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end().catch(() => {});
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    name,
    drop() {
      // FORCE (PostgreSQL 13+): the stack's pooled connections may outlive its stop by a moment.
      dropped ??= admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      return dropped;
    },
  };
}
