import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SessionProfile, startStack, tuningVars } from "@quarry/local-stack";
import type { StackSettings } from "./bench.ts";
import { attachedEngine, describeEngine, type EngineReport, openBenchDatabase } from "./engine.ts";
import type { HttpClient } from "./http.ts";
import { apiWorkerSocket } from "./worker-socket.ts";

/**
 * The stack a benchmark runs against (docs/architecture.md#benchmarks): its own local stack on a
 * throwaway DATA_DIR, or, when `BASE` is set, a running one (`ADMIN_TOKEN` required; `DATABASE_URL`
 * optional, for raw-SQL comparisons and query plans).
 */
export interface Target {
  baseUrl: string;
  /**
   * how requests reach the api worker: through `wrangler dev`'s proxy (the default), or
   * straight to the worker's own socket (`BENCH_VIA=worker`, started stacks only; see
   * worker-socket.ts)
   */
  via: "wrangler-proxy" | "worker-socket";
  adminToken: string;
  /** the stack's Postgres; undefined when attached to a stack without DATABASE_URL */
  databaseUrl: string | undefined;
  mode: "started" | "attached";
  /** the database engine measured (BENCH_ENGINE / DATABASE_URL; see engine.ts) */
  engine: EngineReport;
  /**
   * a started PGlite stack's account of its session's time by statement (PGlite has no
   * `pg_stat_statements`): what `trackStatements` reads there
   */
  sessionProfile?: SessionProfile;
  /** stops a started stack and removes its DATA_DIR (kept when `keepData`); idempotent */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export class TargetConfigError extends Error {}

/** An optional environment setting that must be a positive integer (LOAD_CLIENTS, WRITERS, …). */
export function positiveIntegerEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new TargetConfigError(`${name} must be a positive integer, got '${raw}'`);
  return value;
}

export async function openTarget(
  env: NodeJS.ProcessEnv,
  progress: (line: string) => void,
  settings: StackSettings = {},
): Promise<Target> {
  const via = benchVia(env);
  if (env.BASE) {
    if (via === "worker-socket")
      throw new TargetConfigError("BENCH_VIA=worker needs a started stack: unset BASE");
    if (!env.ADMIN_TOKEN) throw new TargetConfigError("BASE is set: set ADMIN_TOKEN too");
    progress(`attached to ${env.BASE}${env.DATABASE_URL ? " (with DATABASE_URL)" : ""}`);
    const engine = await attachedEngine(env.DATABASE_URL || undefined);
    return {
      engine,
      baseUrl: env.BASE.replace(/\/+$/, ""),
      via: "wrangler-proxy",
      adminToken: env.ADMIN_TOKEN,
      databaseUrl: env.DATABASE_URL || undefined,
      mode: "attached",
      close: async () => {},
    };
  }

  const dataDir = await mkdtemp(join(tmpdir(), "quarry-bench-"));
  const logFile = join(dataDir, "wrangler.log");
  const database = await openBenchDatabase(env, dataDir, progress);
  progress(`starting a local stack (${database.engine}), DATA_DIR ${dataDir}`);
  const stack = await startStack({
    dataDir,
    ...(database.url ? { databaseUrl: database.url } : {}),
    ...settings,
    // Indexing settings compared on the same day's machine, e.g. row-by-row graphs against
    // bulk builds (docs/indexing.md).
    vars: tuningVars(env),
    wranglerOutput: { file: logFile },
    ...(env.BENCH_WRANGLER_LOG_LEVEL
      ? { wranglerLogLevel: wranglerLogLevel(env.BENCH_WRANGLER_LOG_LEVEL) }
      : {}),
    log: (line) => progress(`stack: ${line}`),
  }).catch(async (error: unknown) => {
    progress(`the stack did not start; wrangler's output is in ${logFile}`);
    await database.close();
    throw error;
  });
  const engine = await describeEngine(database.engine, stack.databaseUrl);
  progress(
    `engine: ${engine.name}${engine.version ? ` (${engine.version.split(" on ")[0]}, pgvector ${engine.pgvector})` : ""}`,
  );

  const baseUrl = via === "worker-socket" ? await apiWorkerSocket(stack.baseUrl) : stack.baseUrl;
  if (via === "worker-socket")
    progress(`BENCH_VIA=worker: requests go to ${baseUrl}, the api worker's own socket`);

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    via,
    adminToken: stack.adminToken,
    databaseUrl: stack.databaseUrl,
    mode: "started",
    engine,
    ...(stack.engine === "pglite" ? { sessionProfile: stack.sessionProfile } : {}),
    close({ keepData = false } = {}) {
      closing ??= (async () => {
        progress("stopping the stack");
        await stack.stop();
        await database.close();
        // A run that asked for the workers' log lines is a post-mortem: its log is kept too.
        if (keepData || env.BENCH_WRANGLER_LOG_LEVEL) {
          progress(`kept DATA_DIR ${dataDir} (wrangler output: ${logFile})`);
        } else await rm(dataDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

const WRANGLER_LOG_LEVELS = ["error", "warn", "info", "log", "debug"] as const;

/** `BENCH_WRANGLER_LOG_LEVEL`: `log` keeps the workers' log lines in the run's wrangler.log. */
function wranglerLogLevel(raw: string): (typeof WRANGLER_LOG_LEVELS)[number] {
  const level = WRANGLER_LOG_LEVELS.find((l) => l === raw);
  if (!level) {
    throw new TargetConfigError(
      `BENCH_WRANGLER_LOG_LEVEL must be one of ${WRANGLER_LOG_LEVELS.join(", ")}, got '${raw}'`,
    );
  }
  return level;
}

function benchVia(env: NodeJS.ProcessEnv): Target["via"] {
  const raw = env.BENCH_VIA ?? "proxy";
  if (raw === "proxy") return "wrangler-proxy";
  if (raw === "worker") return "worker-socket";
  throw new TargetConfigError(`BENCH_VIA must be 'proxy' or 'worker', got '${raw}'`);
}

export interface Tenant {
  projectId: string;
  /** the project API key, for `authorization: Bearer` */
  apiKey: string;
}

/** A fresh project and API key through the admin API (docs/api.md#admin). */
export async function createTenant(
  http: HttpClient,
  target: Target,
  name: string,
): Promise<Tenant> {
  const token = target.adminToken;
  const project = await http.post<{ id: string }>("/admin/projects", { name }, { token });
  const key = await http.post<{ key: string }>(
    `/admin/projects/${encodeURIComponent(project.body.id)}/keys`,
    { name: `${name} key` },
    { token },
  );
  return { projectId: project.body.id, apiKey: key.body.key };
}
