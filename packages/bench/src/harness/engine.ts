import {
  createScratchDatabase,
  type NativePostgres,
  provisionNativePostgres,
  startNativePostgres,
} from "@quarry/local-stack";
import pg from "pg";

/**
 * Which database engine a benchmark measured: figures from PGlite (one statement at a time,
 * WASM) and from native PostgreSQL (the engine production runs on) are not comparable, so
 * every result says which it is.
 */
export interface EngineReport {
  name: "pglite" | "native";
  /** `SELECT version()`, when the benchmark could ask */
  version: string | null;
  pgvector: string | null;
}

/** A database a started stack runs on: none for PGlite (the stack embeds it). */
export interface BenchDatabase {
  engine: "pglite" | "native";
  /** the native database the stack runs on; undefined for PGlite */
  url: string | undefined;
  close(): Promise<void>;
}

/**
 * BENCH_ENGINE picks the engine of a stack the benchmark starts: `pglite` (the embedded
 * default) or `native`. Native runs on `DATABASE_URL`'s server when given — in a throwaway
 * database there, dropped afterwards — or else on a cluster provisioned for the run in
 * `dataDir` (`pnpm db:native`'s code), stopped afterwards. `DATABASE_URL` alone means native.
 */
export async function openBenchDatabase(
  env: NodeJS.ProcessEnv,
  dataDir: string,
  progress: (line: string) => void,
): Promise<BenchDatabase> {
  const requested = env.BENCH_ENGINE || (env.DATABASE_URL ? "native" : "pglite");
  if (requested !== "pglite" && requested !== "native") {
    throw new BenchEngineError(`BENCH_ENGINE must be pglite or native, got '${requested}'`);
  }
  if (requested === "pglite") return { engine: "pglite", url: undefined, close: async () => {} };

  let server: NativePostgres | undefined;
  let serverUrl = env.DATABASE_URL;
  if (!serverUrl) {
    progress("native engine: provisioning PostgreSQL with pgvector (skipped when present)");
    await provisionNativePostgres(progress);
    server = await startNativePostgres({ dataDir, log: progress });
    serverUrl = server.url;
  }
  const scratch = await createScratchDatabase(serverUrl, "quarry_bench_");
  progress(`native engine: database ${scratch.name}`);
  return {
    engine: "native",
    url: scratch.url,
    async close() {
      await scratch.drop();
      await server?.stop();
    },
  };
}

export class BenchEngineError extends Error {}

/** What the engine behind `databaseUrl` is, asked of the database itself. */
export async function describeEngine(
  engine: "pglite" | "native",
  databaseUrl: string | undefined,
): Promise<EngineReport> {
  if (!databaseUrl) return { name: engine, version: null, pgvector: null };
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ version: string; pgvector: string | null }>(
      `SELECT version() AS version,
              (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector`,
    );
    return { name: engine, version: rows[0]?.version ?? null, pgvector: rows[0]?.pgvector ?? null };
  } catch {
    return { name: engine, version: null, pgvector: null };
  } finally {
    await client.end().catch(() => {});
  }
}

/** An attached stack's engine, from its database's version string (PGlite's says wasm). */
export async function attachedEngine(databaseUrl: string | undefined): Promise<EngineReport> {
  const report = await describeEngine("native", databaseUrl);
  if (report.version && /wasm|emscripten/i.test(report.version))
    return { ...report, name: "pglite" };
  return report;
}
