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
import { type PgServer, startPgServer } from "./pg-server/index.ts";
import { writeLocalConfigs } from "./wrangler-configs.ts";

export interface StackOptions {
  port: number;
  dataDir: string;
  adminToken?: string;
  embeddingModel?: string;
  openaiApiKey?: string;
  openaiBaseUrl?: string;
  allowPrivateUrls?: boolean;
  /** more worker vars (both workers), e.g. INGEST_FAULT_RATE for fault-injection runs */
  vars?: Record<string, string>;
  /** where wrangler's output goes: inherit the terminal, or append to a log file */
  wranglerOutput?: "inherit" | { file: string };
  readyTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface Stack {
  baseUrl: string;
  adminToken: string;
  adminTokenGenerated: boolean;
  databaseUrl: string;
  /** the loopback Postgres server; `pg.faults` cuts its client connections (tests only) */
  pg: PgServer;
  database: PGlite;
  /** autovacuum for the embedded database; `runDue()` brings statistics up to date now */
  maintenance: Maintenance;
  stop(): Promise<void>;
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * The embedded local stack: PGlite (with pgvector, migrated) served on loopback, and both
 * workers under one `wrangler dev` (local R2 and Queue, persisted under DATA_DIR).
 * Internal ports are OS-chosen, so stacks with different PORTs run side by side.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const log = options.log ?? (() => {});
  const dataDir = resolve(options.dataDir);
  await mkdir(join(dataDir, "wrangler"), { recursive: true });
  const { token: adminToken, generated } = await resolveAdminToken(dataDir, options.adminToken);

  const started = Date.now();
  const database = await openEmbeddedDatabase(join(dataDir, "pg"));
  log(`database ready in ${Date.now() - started} ms`);
  const pg = await startPgServer(database, { host: "127.0.0.1" });
  const databaseUrl = `postgres://quarry:quarry@127.0.0.1:${pg.pgPort}/postgres?sslmode=disable`;
  const maintenance = startEmbeddedMaintenance(database, { log });

  const configs = await writeLocalConfigs(REPO_ROOT, join(dataDir, "wrangler"), {
    DATABASE_URL: databaseUrl,
    NEON_LOCAL_PROXY: `127.0.0.1:${pg.wsPort}`,
    ADMIN_TOKEN: adminToken,
    EMBEDDING_MODEL: options.embeddingModel ?? "local/hash",
    OPENAI_API_KEY: options.openaiApiKey ?? "",
    OPENAI_BASE_URL: options.openaiBaseUrl ?? "https://api.openai.com/v1",
    ALLOW_PRIVATE_URLS: options.allowPrivateUrls ? "true" : "false",
    // PGlite serves one statement at a time, and an ingest slice holds the session for its
    // whole transaction (a 2 MB CSV slice: ~40 s while the HNSW graph grows), so a request
    // may wait that long for its turn. The deadline is for a silent database, not a busy one.
    DATABASE_TIMEOUT_SECONDS: "180",
    ...options.vars,
  });

  const inspectorPort = await freePort();
  const wrangler = spawnWrangler(configs, options, dataDir, inspectorPort);
  const baseUrl = `http://127.0.0.1:${options.port}`;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await stopProcess(wrangler);
      await maintenance.stop();
      await pg.close();
      await database.close();
    })();
    return stopping;
  };

  try {
    await waitForHealth(baseUrl, wrangler, options.readyTimeoutMs ?? 120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  log(`stack ready in ${Date.now() - started} ms`);
  return {
    baseUrl,
    adminToken,
    adminTokenGenerated: generated,
    databaseUrl,
    pg,
    database,
    maintenance,
    stop,
  };
}

function spawnWrangler(
  configs: { api: string; ingest: string },
  options: StackOptions,
  dataDir: string,
  inspectorPort: number,
): ChildProcess {
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
    String(options.port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    join(dataDir, "wrangler-state"),
    "--show-interactive-dev-session=false",
    "--log-level",
    "warn",
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
    stdio: output === "inherit" ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
    detached: true,
  });
  if (output !== "inherit") {
    const file = createWriteStream(output.file, { flags: "a" });
    child.stdout?.pipe(file);
    child.stderr?.pipe(file);
  }
  return child;
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

async function resolveAdminToken(dataDir: string, given?: string) {
  if (given) return { token: given, generated: false };
  const file = join(dataDir, "admin-token");
  try {
    return { token: (await readFile(file, "utf8")).trim(), generated: false };
  } catch {
    const token = `adm_${randomBytes(24).toString("base64url")}`;
    await writeFile(file, token, { mode: 0o600 });
    return { token, generated: true };
  }
}
