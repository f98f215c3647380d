import type { TestProject } from "vitest/node";
import { startTestStack } from "./test-stack.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    adminToken: string;
    /** the loopback OpenAI-compatible server the stack's OPENAI_BASE_URL points at ("" when attached) */
    openaiBaseUrl: string;
    /** the stack's Postgres (PGlite's loopback server, or the native database), for tests that read stored data ("" when attached without E2E_DATABASE_URL) */
    databaseUrl: string;
    /** which engine the stack runs on ("" when attached: unknown) */
    databaseEngine: "pglite" | "native" | "";
    /** the workers' console output (wrangler's log file; "" when attached) */
    workerLog: string;
    /** the local stack's own log (its Postgres server, R2, Queue; "" when attached) */
    stackLog: string;
  }
}

/**
 * One real local stack for the e2e tier: workerd (wrangler dev) + Postgres, on a free port
 * and a throwaway DATA_DIR — exactly what `pnpm dev` runs. Postgres is the embedded PGlite,
 * or with `QUARRY_TEST_DATABASE_URL` (a native server with pgvector >= 0.8) a fresh database
 * created there for the run and dropped after it (see test-stack.ts).
 * `E2E_BASE` + `E2E_ADMIN_TOKEN` point the tests at an already running stack instead
 * (`E2E_DATABASE_URL`: its Postgres, which the stored-data checks read).
 */
export default async function setup(project: TestProject) {
  if (process.env.E2E_BASE && process.env.E2E_ADMIN_TOKEN) {
    project.provide("baseUrl", process.env.E2E_BASE);
    project.provide("adminToken", process.env.E2E_ADMIN_TOKEN);
    project.provide("openaiBaseUrl", process.env.E2E_OPENAI_BASE_URL ?? "");
    project.provide("databaseUrl", process.env.E2E_DATABASE_URL ?? "");
    project.provide("databaseEngine", "");
    project.provide("workerLog", "");
    project.provide("stackLog", "");
    return;
  }
  const { stack, openai, stop, logFile, stackLogFile } = await startTestStack({ label: "e2e" });
  project.provide("baseUrl", stack.baseUrl);
  project.provide("adminToken", stack.adminToken);
  project.provide("openaiBaseUrl", openai.url);
  project.provide("databaseUrl", stack.databaseUrl);
  project.provide("databaseEngine", stack.engine);
  project.provide("workerLog", logFile);
  project.provide("stackLog", stackLogFile);
  return stop;
}
