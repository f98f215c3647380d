import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { freePort } from "../../../../packages/local-stack/src/free-port.ts";
import { type Stack, startStack } from "../../../../packages/local-stack/src/stack.ts";
import { startFakeOpenAI } from "./fake-openai-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    adminToken: string;
    /** the loopback OpenAI-compatible server the stack's OPENAI_BASE_URL points at ("" when attached) */
    openaiBaseUrl: string;
    /** the stack's Postgres (wire protocol, loopback), for tests that read stored data ("" when attached without E2E_DATABASE_URL) */
    databaseUrl: string;
  }
}

/**
 * One real local stack for the e2e tier: workerd (wrangler dev) + embedded Postgres, on a
 * free port and a throwaway DATA_DIR — exactly what `pnpm dev` runs.
 * `E2E_BASE` + `E2E_ADMIN_TOKEN` point the tests at an already running stack instead
 * (`E2E_DATABASE_URL`: its Postgres, which the stored-data checks read).
 */
export default async function setup(project: TestProject) {
  if (process.env.E2E_BASE && process.env.E2E_ADMIN_TOKEN) {
    project.provide("baseUrl", process.env.E2E_BASE);
    project.provide("adminToken", process.env.E2E_ADMIN_TOKEN);
    project.provide("openaiBaseUrl", process.env.E2E_OPENAI_BASE_URL ?? "");
    project.provide("databaseUrl", process.env.E2E_DATABASE_URL ?? "");
    return;
  }
  const dataDir = await mkdtemp(join(tmpdir(), "quarry-e2e-"));
  // Completions reach a real OpenAI-compatible server on loopback (openai/<scenario> models).
  const openai = await startFakeOpenAI();
  let stack: Stack;
  try {
    stack = await startStack({
      port: await freePort(),
      dataDir,
      openaiBaseUrl: openai.url,
      openaiApiKey: "sk-e2e-fake",
      wranglerOutput: { file: join(dataDir, "wrangler.log") },
    });
  } catch (error) {
    console.error(`e2e stack failed to start; wrangler log: ${join(dataDir, "wrangler.log")}`);
    await openai.close();
    throw error;
  }
  project.provide("baseUrl", stack.baseUrl);
  project.provide("adminToken", stack.adminToken);
  project.provide("openaiBaseUrl", openai.url);
  project.provide("databaseUrl", stack.databaseUrl);
  return async () => {
    await stack.stop();
    await openai.close();
    if (!process.env.KEEP_E2E_DATA) await rm(dataDir, { recursive: true, force: true });
  };
}
