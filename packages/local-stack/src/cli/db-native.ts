import { access } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { type NativePostgres, startNativePostgres } from "../native-postgres/cluster.ts";
import { isSufficientPgvector } from "../native-postgres/installation.ts";
import { pgvectorVersion } from "../native-postgres/pgvector-version.ts";
import { provisionNativePostgres } from "../native-postgres/provision.ts";

/**
 * `pnpm db:native [provision] [--no-fsync]`: a native PostgreSQL 15 with pgvector, the engine
 * production runs on, without Docker.
 * - `provision`: installs PostgreSQL 15 and pgvector >= 0.8 from Debian's packages (root,
 *   Debian 12) when missing, then exits. CI runs it before the tests.
 * - no argument: provisions when needed, then runs a cluster in `$DATA_DIR/native-pg` on
 *   127.0.0.1 (`PGPORT`, else a free port), creates the database `quarry`, prints its
 *   DATABASE_URL and stays in the foreground until SIGINT/SIGTERM, which stop the server.
 * - `--no-fsync`: a throwaway cluster: faster writes, not crash-safe.
 */
const log = (line: string) => console.error(`[db:native] ${line}`);
const USAGE = "usage: pnpm db:native [provision] [--no-fsync]";

const args = process.argv.slice(2);
const provisionOnly = args.includes("provision");
const durable = !args.includes("--no-fsync");
const unknown = args.filter((arg) => arg !== "provision" && arg !== "--no-fsync");
if (unknown.length > 0) fail(`unknown argument ${unknown.join(" ")}\n${USAGE}`, 2);

const startedAt = performance.now();
await provisionNativePostgres(log).catch((error: unknown) => fail(messageOf(error)));
log(`provisioning checked in ${Math.round(performance.now() - startedAt)} ms`);
if (provisionOnly) process.exit(0);

const port = process.env.PGPORT ? Number(process.env.PGPORT) : undefined;
if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) {
  fail(`PGPORT must be a TCP port, got ${process.env.PGPORT}`, 2);
}
const dataDir = join(process.env.DATA_DIR ?? ".data", "native-pg");

// Signals may arrive while the server starts: remember them, and stop once it is up.
let server: NativePostgres | null = null;
let stopRequested = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopRequested) return;
    stopRequested = true;
    log(`${signal}: stopping PostgreSQL, data kept in ${dataDir}`);
    if (server) void stopAndExit(server, 0);
  });
}

server = await startNativePostgres({ dataDir, port, durable, log }).catch((error: unknown) =>
  fail(messageOf(error)),
);
if (stopRequested) await stopAndExit(server, 0);

const databaseUrl = server.url.replace(/\/postgres$/, "/quarry");
try {
  await createDatabaseIfMissing(server.url, "quarry");
  const version = await enableVector(databaseUrl);
  if (!isSufficientPgvector(version)) throw new Error(`pgvector ${version} is older than 0.8`);
  log(`PostgreSQL on 127.0.0.1:${server.port}, pgvector ${version}, cluster in ${server.dataDir}`);
} catch (error) {
  log(`failed: ${messageOf(error)}`);
  await stopAndExit(server, 1);
}

console.log(`DATABASE_URL=${databaseUrl}`);
log(`next, in another terminal: DATABASE_URL=${databaseUrl} pnpm dev`);
log("Ctrl-C stops the server; the data stays");

// Stay in the foreground while the server lives; if someone stops it behind our back, say so.
const pidFile = join(server.dataDir, "pgdata", "postmaster.pid");
setInterval(() => {
  access(pidFile).catch(() => {
    if (stopRequested) return;
    log("the PostgreSQL server stopped on its own (see server.log in the data dir)");
    process.exit(1);
  });
}, 2_000);

async function createDatabaseIfMissing(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount === 0) {
      // An identifier cannot be a bound parameter; the name is our constant, quoted anyway.
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      log(`created database ${name}`);
    }
  } finally {
    await client.end();
  }
}

/** `CREATE EXTENSION vector` proves the extension loads in this server, not just that it is on disk. */
async function enableVector(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("CREATE EXTENSION IF NOT EXISTS vector");
    await client.query("SELECT '[1,2,3]'::vector <-> '[3,2,1]'::vector");
  } finally {
    await client.end();
  }
  return pgvectorVersion(url);
}

async function stopAndExit(running: NativePostgres, code: number): Promise<never> {
  try {
    await running.stop();
    log("PostgreSQL stopped");
  } catch (error) {
    log(`stopping failed: ${messageOf(error)}`);
    process.exit(1);
  }
  process.exit(code);
}

function fail(message: string, code = 1): never {
  console.error(`[db:native] ${message}`);
  process.exit(code);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
