import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import { openEmbeddedDatabase } from "./embedded-database.ts";
import { type Maintenance, startEmbeddedMaintenance } from "./embedded-maintenance.ts";
import { freePort } from "./free-port.ts";
import { type NativeProxy, startNativeProxy } from "./native-proxy/index.ts";
import { maskDatabaseUrl, prepareNativeDatabase } from "./native-proxy/native-database.ts";
import { type PgServer, startPgServer } from "./pg-server/index.ts";
import { SessionProfile } from "./pg-server/session-profile.ts";
import { guardProcessGroup } from "./process-group-guard.ts";
import { writeLocalConfigs } from "./wrangler-configs.ts";

export interface StackOptions {
  /**
   * Where the stack answers. Omitted: a free port on loopback, and another one when some other
   * process takes it before wrangler binds it (tests and benches start stacks side by side).
   */
  port?: number;
  /** where the ports this stack picks come from (default: ones the OS says are free) */
  pickPort?: () => Promise<number>;
  dataDir: string;
  adminToken?: string;
  embeddingModel?: string;
  openaiApiKey?: string;
  openaiBaseUrl?: string;
  allowPrivateUrls?: boolean;
  /**
   * A native PostgreSQL (pgvector >= 0.8) to run on instead of the embedded PGlite
   * (`DATABASE_URL` of `pnpm dev`); migrated on start. DATA_DIR still holds R2 and Queue state.
   */
  databaseUrl?: string;
  /** more worker vars (both workers), e.g. INGEST_FAULT_RATE for fault-injection runs */
  vars?: Record<string, string>;
  /** where wrangler's output goes: inherit the terminal, or append to a log file */
  wranglerOutput?: "inherit" | { file: string };
  /**
   * wrangler's `--log-level` (default `warn`): `log` lets the workers' own lines through (their
   * `console.log`: the ingest worker's "vectors indexed", say), for a post-mortem of a slow run
   */
  wranglerLogLevel?: "error" | "warn" | "info" | "log" | "debug";
  readyTimeoutMs?: number;
  log?: (line: string) => void;
  /**
   * Where the loopback database server logs each client connection's life (opened, cut,
   * restored, closed): a line per event, so for post-mortems only (tests). Default: silent.
   */
  databaseServerLog?: (line: string) => void;
}

/**
 * What the workers reach the database through (`NEON_LOCAL_PROXY`): Neon's WebSocket and
 * `POST /sql` endpoints on loopback. `faults` cuts or silences its client connections (tests
 * only), on either engine.
 */
export type StackDatabaseServer = Pick<
  PgServer,
  "host" | "wsPort" | "connectionCount" | "faults" | "close"
>;

interface StackBase {
  baseUrl: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  /** where the admin token is kept (`DATA_DIR/admin-token`); undefined when it was given */
  adminTokenFile: string | undefined;
  /**
   * A connection string Node-side code connects to with `pg`: PGlite's loopback wire-protocol
   * server, or the native server itself.
   */
  databaseUrl: string;
  /** the loopback server the workers' Neon driver talks to */
  pg: StackDatabaseServer;
  stop(): Promise<void>;
}

/** The default: PGlite in this process, served on loopback (one session, taking turns). */
export interface EmbeddedStack extends StackBase {
  engine: "pglite";
  pg: PgServer;
  database: PGlite;
  /** autovacuum for the embedded database; `runDue()` brings statistics up to date now */
  maintenance: Maintenance;
  /** the session's time by statement, since the stack started (session-profile.ts) */
  sessionProfile: SessionProfile;
}

/** `databaseUrl` given: a native PostgreSQL, behind the Neon-style proxy. */
export interface NativeStack extends StackBase {
  engine: "native";
  pg: NativeProxy;
  /** the database's pgvector version, after the migrations */
  pgvectorVersion: string;
}

export type Stack = EmbeddedStack | NativeStack;

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * The local stack: Postgres — PGlite (with pgvector, migrated) served on loopback by default,
 * or a native PostgreSQL behind a Neon-style proxy when `databaseUrl` is given — and both
 * workers under one `wrangler dev` (local R2 and Queue, persisted under DATA_DIR).
 * Internal ports are OS-chosen, so stacks with different PORTs run side by side.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const log = options.log ?? (() => {});
  const dataDir = resolve(options.dataDir);
  await mkdir(join(dataDir, "wrangler"), { recursive: true });
  const {
    token: adminToken,
    generated,
    file: adminTokenFile,
  } = await resolveAdminToken(dataDir, options.adminToken);

  const started = Date.now();
  const engine = options.databaseUrl
    ? await openNative(options.databaseUrl, log, options.databaseServerLog)
    : await openEmbedded(dataDir, log, options.databaseServerLog);
  log(`database ready in ${Date.now() - started} ms`);

  let configs: { api: string; ingest: string };
  try {
    configs = await writeLocalConfigs(REPO_ROOT, join(dataDir, "wrangler"), {
      DATABASE_URL: engine.stack.databaseUrl,
      NEON_LOCAL_PROXY: `${engine.stack.pg.host}:${engine.stack.pg.wsPort}`,
      ADMIN_TOKEN: adminToken,
      EMBEDDING_MODEL: options.embeddingModel ?? "local/hash",
      OPENAI_API_KEY: options.openaiApiKey ?? "",
      OPENAI_BASE_URL: options.openaiBaseUrl ?? "https://api.openai.com/v1",
      ALLOW_PRIVATE_URLS: options.allowPrivateUrls ? "true" : "false",
      ...engine.vars,
      ...options.vars,
    });
  } catch (error) {
    await engine.close();
    throw error;
  }

  let workers: RunningWorkers;
  try {
    workers = await startWorkers(configs, options, dataDir, log);
  } catch (error) {
    await engine.close();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await workers.stop();
      await engine.close();
    })();
    return stopping;
  };
  log(`stack ready in ${Date.now() - started} ms`);
  return {
    ...engine.stack,
    baseUrl: workers.baseUrl,
    adminToken,
    adminTokenGenerated: generated,
    adminTokenFile,
    stop,
  };
}

/** One engine's part of a stack, before the workers start. */
interface OpenedEngine {
  stack:
    | Omit<EmbeddedStack, keyof Omit<StackBase, "databaseUrl" | "pg">>
    | Omit<NativeStack, keyof Omit<StackBase, "databaseUrl" | "pg">>;
  /** worker vars this engine needs */
  vars: Record<string, string>;
  close(): Promise<void>;
}

async function openEmbedded(
  dataDir: string,
  log: (line: string) => void,
  serverLog: ((line: string) => void) | undefined,
): Promise<OpenedEngine> {
  const database = await openEmbeddedDatabase(join(dataDir, "pg"));
  const sessionProfile = new SessionProfile();
  const pg = await startPgServer(database, {
    host: "127.0.0.1",
    ...(serverLog ? { log: serverLog } : {}),
    // Every request waits while one client holds the one session: a long turn is logged, and
    // every statement's time counted (the benches' account of the database's time).
    longTurns: { log, profile: sessionProfile },
  });
  const maintenance = startEmbeddedMaintenance(database, { log, profile: sessionProfile });
  return {
    stack: {
      engine: "pglite",
      databaseUrl: `postgres://quarry:quarry@127.0.0.1:${pg.pgPort}/postgres?sslmode=disable`,
      pg,
      database,
      maintenance,
      sessionProfile,
    },
    vars: {
      // PGlite serves one statement at a time, and an ingest slice holds the session for its
      // whole transaction (a 2 MB CSV slice: ~40 s while the HNSW graph grows), so a request
      // may wait that long for its turn. The deadline is for a silent database, not a busy one.
      DATABASE_TIMEOUT_SECONDS: "180",
      // A bulk graph build would hold the one session for minutes: graphs grow row by row.
      VECTOR_GRAPH_BULK_MIN_ROWS: "0",
      // ...on that same session, so they are the cheap ones (core `VECTOR_GRAPH_DEFAULTS`).
      VECTOR_GRAPH_M: "16",
      VECTOR_GRAPH_EF_CONSTRUCTION: "64",
      // Full precision: WASM has no half-precision conversion in hardware, and half precision
      // built a 20k-vector graph 4.6× slower (core `VECTOR_GRAPH_DEFAULTS`).
      VECTOR_GRAPH_ENCODING: "vector",
    },
    async close() {
      await maintenance.stop();
      await pg.close();
      await database.close();
    },
  };
}

async function openNative(
  databaseUrl: string,
  log: (line: string) => void,
  serverLog: ((line: string) => void) | undefined,
): Promise<OpenedEngine> {
  const { pgvectorVersion } = await prepareNativeDatabase(databaseUrl);
  log(`native PostgreSQL ${maskDatabaseUrl(databaseUrl)} migrated (pgvector ${pgvectorVersion})`);
  const pg = await startNativeProxy({
    databaseUrl,
    host: "127.0.0.1",
    ...(serverLog ? { log: serverLog } : {}),
  });
  return {
    // The workers get the real connection string: the driver's startup message carries its
    // user, password and database through the proxy; only the host is the proxy's business.
    stack: { engine: "native", databaseUrl, pg, pgvectorVersion },
    vars: {},
    close: () => pg.close(),
  };
}

/** Both workers under one `wrangler dev`, answering /health. */
interface RunningWorkers {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts on a port picked here are tried this many times, each on a fresh port. */
const PORT_ATTEMPTS = 3;

/**
 * A free port is only free until someone binds it: between our pick and wrangler's bind,
 * another process (any outgoing connection takes an ephemeral port from the same range) may
 * take it, and wrangler exits with "Address already in use". Then a port we picked (the
 * inspector's, or the stack's when none was given) is picked again; a given one is not.
 */
async function startWorkers(
  configs: { api: string; ingest: string },
  options: StackOptions,
  dataDir: string,
  log: (line: string) => void,
): Promise<RunningWorkers> {
  for (let attempt = 1; ; attempt++) {
    const pickPort = options.pickPort ?? freePort;
    const port = options.port ?? (await pickPort());
    const inspectorPort = await pickPort();
    const wrangler = spawnWrangler(configs, options, dataDir, port, inspectorPort);
    // If this process dies without stopping the stack (SIGKILL, a crash), wrangler's group
    // (wrangler and its workerd processes, holding PORT) goes with it.
    const guard = guardProcessGroup(wrangler.child);
    const baseUrl = `http://127.0.0.1:${port}`;
    const stop = async () => {
      await stopProcess(wrangler.child);
      guard.release();
    };
    try {
      await waitForHealth(baseUrl, wrangler.child, options.readyTimeoutMs ?? 120_000);
      return { baseUrl, stop };
    } catch (error) {
      await stop();
      const taken = wrangler.portTaken();
      if (taken === undefined || taken === options.port || attempt === PORT_ATTEMPTS) throw error;
      log(`port ${taken} was taken before wrangler bound it; starting again on other ports`);
    }
  }
}

function spawnWrangler(
  configs: { api: string; ingest: string },
  options: StackOptions,
  dataDir: string,
  port: number,
  inspectorPort: number,
): { child: ChildProcess; portTaken(): number | undefined } {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve("wrangler/package.json")), "bin/wrangler.js");
  const args = [
    bin,
    "dev",
    "-c",
    configs.api,
    "-c",
    configs.ingest,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    join(dataDir, "wrangler-state"),
    "--show-interactive-dev-session=false",
    "--log-level",
    options.wranglerLogLevel ?? "warn",
  ];
  const output = options.wranglerOutput ?? "inherit";
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_LOG_PATH: join(dataDir, "wrangler", "logs"),
      // Each stack its own dev registry: in the shared default, a second stack with the same
      // worker names (the fault suite's, beside the e2e one) updates entries the first one
      // watches, and wrangler reloads the workers mid-request ("Your worker restarted").
      // Both workers run in this one process, so nothing needs the registry across processes.
      WRANGLER_REGISTRY_PATH: join(dataDir, "wrangler", "registry"),
      NO_COLOR: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const file = output === "inherit" ? undefined : createWriteStream(output.file, { flags: "a" });
  let portTaken: number | undefined;
  const watch = (stream: NodeJS.ReadableStream | null, terminal: NodeJS.WriteStream) =>
    stream?.on("data", (chunk: Buffer) => {
      if (file) file.write(chunk);
      else terminal.write(chunk);
      // wrangler's words: "Address already in use (127.0.0.1:8787). Please check that ..."
      const taken = /Address already in use \([^)]*:(\d+)\)/.exec(chunk.toString("utf8"));
      if (taken) portTaken = Number(taken[1]);
    });
  watch(child.stdout, process.stdout);
  watch(child.stderr, process.stderr);
  return { child, portTaken: () => portTaken };
}

async function waitForHealth(baseUrl: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the stack did not answer ${baseUrl}/health within ${timeoutMs} ms`);
}

/** SIGTERM the whole wrangler process group (it runs workerd children), then SIGKILL. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

async function resolveAdminToken(
  dataDir: string,
  given?: string,
): Promise<{ token: string; generated: boolean; file: string | undefined }> {
  if (given) return { token: given, generated: false, file: undefined };
  const file = join(dataDir, "admin-token");
  try {
    return { token: (await readFile(file, "utf8")).trim(), generated: false, file };
  } catch {
    const token = `adm_${randomBytes(24).toString("base64url")}`;
    await writeFile(file, token, { mode: 0o600 });
    return { token, generated: true, file };
  }
}
