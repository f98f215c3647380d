import { exec } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";

/**
 * `wrangler dev` gives secrets and vars to the primary worker only, and an `[ai]` binding
 * forces a Cloudflare login. So `pnpm dev` runs both workers from generated copies of the
 * committed configs, under DATA_DIR: `main` made absolute, the AI binding dropped (the
 * offline providers stand in for it), and the stack's vars injected into `[vars]`.
 * A config's `[build] command` (the api worker's static assets) runs here, from the repo root,
 * as `wrangler deploy` runs it; the copies drop it, since `wrangler dev` would also rerun it
 * on file changes and restart the workers mid-request. `[assets] directory` is made absolute.
 * `[secrets]` goes too: the stack gives the secrets as vars.
 *
 * Fault-injection runs (INGEST_FAULT_RATE among the vars: `pnpm bench ingest`, the fault
 * suite) run the ingest worker from its fault-injecting entry, which wraps the production
 * handlers; the committed config, and so every deployment, names the entry without faults.
 */
export async function writeLocalConfigs(
  repoRoot: string,
  outDir: string,
  vars: Record<string, string>,
): Promise<{ api: string; ingest: string }> {
  const api = join(outDir, "api.wrangler.toml");
  const ingest = join(outDir, "ingest.wrangler.toml");
  await writeFile(api, await localConfig(repoRoot, join(repoRoot, "wrangler.toml"), vars));
  const ingestMain = vars.INGEST_FAULT_RATE ? FAULT_INJECTING_INGEST_ENTRY : undefined;
  await writeFile(
    ingest,
    await localConfig(repoRoot, join(repoRoot, "workers/ingest/wrangler.toml"), vars, ingestMain),
  );
  return { api, ingest };
}

/** Relative to workers/ingest/wrangler.toml, as its `main` is. */
const FAULT_INJECTING_INGEST_ENTRY = "fault-injection/worker.ts";

async function localConfig(
  repoRoot: string,
  path: string,
  vars: Record<string, string>,
  mainOverride?: string,
): Promise<string> {
  const source = await readFile(path, "utf8");
  const main = mainOverride ?? /^main\s*=\s*"([^"]+)"/m.exec(source)?.[1];
  if (!main) throw new Error(`${path} has no main entry`);
  const build = /^\[build\][^[]*?^command\s*=\s*"([^"]+)"/ms.exec(source)?.[1];
  // The console's build may fail mid-edit without stopping the stack (console-assets.mjs).
  const env = { ...process.env, QUARRY_CONSOLE_BUILD: "optional" };
  if (build) await promisify(exec)(build, { cwd: repoRoot, env });
  const injected = Object.entries(vars)
    .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
    .join("\n");
  let out = source
    .replace(/^main\s*=.*$/m, `main = ${JSON.stringify(resolve(dirname(path), main))}`)
    .replace(/^\[ai\]\s*\nbinding\s*=.*$/m, "")
    .replace(/^\[observability\][^[]*/m, "")
    .replace(/^\[build\][^[]*/m, "")
    // its lines hold brackets (`required = [...]`): the section ends at the next header line
    .replace(/^\[secrets\]\s*\n(?:(?!\[).*\n?)*/m, "")
    .replace(
      /^(\[assets\][^[]*?^directory\s*=\s*)"([^"]+)"/ms,
      (_, key: string, dir: string) => `${key}${JSON.stringify(resolve(dirname(path), dir))}`,
    );
  // Drop committed vars that the stack overrides, then add the stack's.
  for (const key of Object.keys(vars)) out = out.replace(new RegExp(`^${key}\\s*=.*$`, "m"), "");
  if (!/^\[vars\]/m.test(out)) out += "\n[vars]\n";
  return out.replace(/^\[vars\]\s*$/m, `[vars]\n${injected}`);
}
