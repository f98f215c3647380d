import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logLinesTo } from "../../../../packages/local-stack/src/log-file.ts";
import {
  createScratchDatabase,
  type ScratchDatabase,
} from "../../../../packages/local-stack/src/native-proxy/native-database.ts";
import { type Stack, startStack } from "../../../../packages/local-stack/src/stack.ts";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai-server.ts";

export interface TestStack {
  stack: Stack;
  /** the loopback OpenAI-compatible server the stack's OPENAI_BASE_URL points at */
  openai: FakeOpenAI;
  /** wrangler's output (the workers' logs) */
  logFile: string;
  /**
   * the stack's own log, each line timestamped: start-up, and on PGlite the embedded
   * maintenance's statements with their durations (each holds the one session while it runs)
   */
  stackLogFile: string;
  /**
   * the loopback database server's log, every client connection's life, timestamped; only
   * when asked for (`databaseServerLog`): a few lines per connection, written by the process
   * that also serves PGlite
   */
  databaseServerLogFile: string | undefined;
  /**
   * stops both, removes the DATA_DIR (kept when KEEP_E2E_DATA is set, with wrangler.log) and
   * drops the native database (kept too)
   */
  stop(): Promise<void>;
}

/**
 * The engine the test stacks run on (docs/architecture.md#two-engines):
 * - `QUARRY_TEST_DATABASE_URL` unset: the embedded PGlite, as `pnpm dev` runs by default;
 * - `QUARRY_TEST_DATABASE_URL=postgres://user:pw@host:port/db`: a native PostgreSQL server
 *   (pgvector >= 0.8; the role may CREATE DATABASE). Each stack gets a FRESH database there,
 *   `<QUARRY_TEST_DATABASE_PREFIX><label>_<random>` (prefix default `quarry_`), migrated on
 *   start and dropped at stop; the URL itself only names the server to create it on.
 */
export function nativeTestServerUrl(): string | undefined {
  return process.env.QUARRY_TEST_DATABASE_URL || undefined;
}

/**
 * A real local stack for end-to-end tests: workerd (wrangler dev) + Postgres (embedded, or a
 * fresh database on the native server of QUARRY_TEST_DATABASE_URL) on a free port and a
 * throwaway DATA_DIR, exactly what `pnpm dev` runs, with completions going to a real
 * OpenAI-compatible server on loopback (`openai/<scenario>` models).
 */
export async function startTestStack(options: {
  /** names the DATA_DIR, the native database and the start-up failure message */
  label: string;
  vars?: Record<string, string>;
  /** keep the database server's log (`databaseServerLogFile`), for post-mortems */
  databaseServerLog?: boolean;
}): Promise<TestStack> {
  const dataDir = await mkdtemp(join(tmpdir(), `quarry-${options.label}-`));
  const logFile = join(dataDir, "wrangler.log");
  const stackLogFile = join(dataDir, "stack.log");
  const databaseServerLogFile = options.databaseServerLog
    ? join(dataDir, "database-server.log")
    : undefined;
  const serverUrl = nativeTestServerUrl();
  const database: ScratchDatabase | undefined = serverUrl
    ? await createScratchDatabase(
        serverUrl,
        `${process.env.QUARRY_TEST_DATABASE_PREFIX || "quarry_"}${options.label.toLowerCase().replace(/[^a-z0-9_]/g, "_")}_`,
      )
    : undefined;
  const openai = await startFakeOpenAI();
  let stack: Stack;
  try {
    stack = await startStack({
      dataDir,
      openaiBaseUrl: openai.url,
      openaiApiKey: `sk-${options.label}-fake`,
      ...(database ? { databaseUrl: database.url } : {}),
      ...(options.vars ? { vars: options.vars } : {}),
      wranglerOutput: { file: logFile },
      log: logLinesTo(stackLogFile),
      ...(databaseServerLogFile ? { databaseServerLog: logLinesTo(databaseServerLogFile) } : {}),
    });
  } catch (error) {
    console.error(`${options.label} stack failed to start; wrangler log: ${logFile}`);
    await openai.close();
    await database?.drop();
    throw error;
  }
  return {
    stack,
    openai,
    logFile,
    stackLogFile,
    databaseServerLogFile,
    async stop() {
      await stack.stop();
      await openai.close();
      if (process.env.KEEP_E2E_DATA) return;
      await rm(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}
