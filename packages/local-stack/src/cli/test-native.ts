import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type NativePostgres, startNativePostgres } from "../native-postgres/cluster.ts";
import { provisionNativePostgres } from "../native-postgres/provision.ts";

/**
 * `pnpm test:native`: the domain tier (with the concurrency suite) and the end-to-end tier on
 * native PostgreSQL, the engine production runs on (docs/architecture.md#two-engines). The server
 * is `QUARRY_TEST_DATABASE_URL` when set; otherwise a throwaway cluster (fsync off) is provisioned
 * and started for the run and removed afterwards. Each test file or stack gets its own fresh
 * database on the server, so the run never sees data it did not write.
 */
const log = (line: string) => console.error(`[test:native] ${line}`);
/** vitest runs, in order: the domain tier, the stack's native parts, the end-to-end tier */
const RUNS = [
  ["--project", "domain-native"],
  ["--project", "stack", "packages/local-stack/test/native-stack.test.ts"],
  ["--project", "e2e"],
] as const;

let cluster: NativePostgres | undefined;
let clusterDir: string | undefined;
let serverUrl = process.env.QUARRY_TEST_DATABASE_URL;
let status = 1;
try {
  if (!serverUrl) {
    await provisionNativePostgres(log);
    clusterDir = await mkdtemp(join(tmpdir(), "quarry-test-native-"));
    cluster = await startNativePostgres({ dataDir: clusterDir, durable: false, log });
    serverUrl = cluster.url;
  }
  log(`server ${serverUrl}`);
  status = 0;
  for (const run of RUNS) {
    const code = await vitest(run, serverUrl);
    if (code !== 0) {
      status = code;
      break;
    }
  }
} catch (error) {
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await cluster?.stop();
  if (clusterDir) await rm(clusterDir, { recursive: true, force: true });
}
process.exit(status);

function vitest(run: readonly string[], url: string): Promise<number> {
  const args = ["vitest", "run", ...run];
  log(`pnpm ${args.join(" ")}`);
  const child = spawn("pnpm", args, {
    stdio: "inherit",
    env: { ...process.env, QUARRY_TEST_DATABASE_URL: url },
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
}
