import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../../packages/local-stack/src/free-port.ts";
import { type Stack, startStack } from "../../../../packages/local-stack/src/stack.ts";
import { type FakeOpenAI, startFakeOpenAI } from "./fake-openai-server.ts";

export interface TestStack {
  stack: Stack;
  /** the loopback OpenAI-compatible server the stack's OPENAI_BASE_URL points at */
  openai: FakeOpenAI;
  /** wrangler's output (the workers' logs) */
  logFile: string;
  /** stops both and removes the DATA_DIR (kept when KEEP_E2E_DATA is set, with wrangler.log) */
  stop(): Promise<void>;
}

/**
 * A real local stack for end-to-end tests: workerd (wrangler dev) + embedded Postgres on a
 * free port and a throwaway DATA_DIR, exactly what `pnpm dev` runs, with completions going
 * to a real OpenAI-compatible server on loopback (`openai/<scenario>` models).
 */
export async function startTestStack(options: {
  /** names the DATA_DIR and the start-up failure message */
  label: string;
  vars?: Record<string, string>;
}): Promise<TestStack> {
  const dataDir = await mkdtemp(join(tmpdir(), `quarry-${options.label}-`));
  const logFile = join(dataDir, "wrangler.log");
  const openai = await startFakeOpenAI();
  let stack: Stack;
  try {
    stack = await startStack({
      port: await freePort(),
      dataDir,
      openaiBaseUrl: openai.url,
      openaiApiKey: `sk-${options.label}-fake`,
      ...(options.vars ? { vars: options.vars } : {}),
      wranglerOutput: { file: logFile },
    });
  } catch (error) {
    console.error(`${options.label} stack failed to start; wrangler log: ${logFile}`);
    await openai.close();
    throw error;
  }
  return {
    stack,
    openai,
    logFile,
    async stop() {
      await stack.stop();
      await openai.close();
      if (!process.env.KEEP_E2E_DATA) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
