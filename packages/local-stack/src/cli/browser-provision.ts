import { aptInstall } from "../native-postgres/apt-install.ts";
import { isRoot, runCommand } from "../native-postgres/run-command.ts";

/**
 * `pnpm browser:provision`: the headless browser of the e2e tier's browser tests (`/docs`
 * rendered offline), Debian's `chromium` package at /usr/bin/chromium, driven by
 * `playwright-core` (which downloads no browser of its own). CI runs it before the tests.
 * Idempotent: when chromium answers `--version` it only says so (~100 ms).
 * `CHROMIUM_PATH` points the tests at another Chromium instead (nothing is installed then).
 */
export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";
const log = (line: string) => console.error(`[browser:provision] ${line}`);

const path = process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH;
const startedAt = performance.now();
let version = await chromiumVersion(path);
if (!version) {
  if (path !== DEFAULT_CHROMIUM_PATH) fail(`CHROMIUM_PATH=${path} does not run`);
  if (process.platform !== "linux" || !isRoot() || !(await hasAptGet())) {
    fail(
      `${DEFAULT_CHROMIUM_PATH} is missing and installing it needs root on Debian (apt-get install chromium). ` +
        "Install Chromium yourself and set CHROMIUM_PATH to its executable.",
    );
  }
  await aptInstall(["chromium"], log).catch((error: unknown) => fail(String(error)));
  version = await chromiumVersion(path);
  if (!version) fail(`chromium was installed but ${path} does not run`);
}
log(`${version} at ${path} (checked in ${Math.round(performance.now() - startedAt)} ms)`);

async function chromiumVersion(executable: string): Promise<string | null> {
  return runCommand(executable, ["--version"]).then(
    ({ stdout }) => stdout.trim(),
    () => null,
  );
}

async function hasAptGet(): Promise<boolean> {
  return runCommand("apt-get", ["--version"]).then(
    () => true,
    () => false,
  );
}

function fail(message: string): never {
  log(message);
  process.exit(1);
}
