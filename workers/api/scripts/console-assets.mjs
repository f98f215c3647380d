#!/usr/bin/env node
/**
 * Builds the console (packages/console, Vite) into the api worker's static assets directory
 * (wrangler.toml `[assets]`) under `console/`, where routes/console.ts serves it at /console.
 * The console is an asset, never part of the worker's JS (1 MiB budget).
 *
 * Run by wrangler's `[build] command` after docs-assets.mjs (`wrangler deploy`, `pnpm
 * build:check`) and by the local stack before `wrangler dev` (`pnpm dev`, the e2e tests).
 * Skipped when the console's sources are unchanged since the last build (a hash of them is
 * kept beside the output). Safe from parallel stacks: one build at a time (a lock directory),
 * into a private directory whose files are then moved in one by one (hashed asset names never
 * collide), index.html last, so a running stack never sees a half-written console.
 * With QUARRY_CONSOLE_BUILD=optional (the local stack sets it) a failed build is a warning and
 * the previous build, if any, stays: a console page being edited must not stop the API's own
 * stack from starting. `wrangler deploy` and `pnpm build:check` fail on it.
 * Plain Node (no TypeScript, no dependencies) so wrangler can run it as is.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ASSETS_DIR } from "./docs-assets.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const CONSOLE_DIR = resolve(here, "../../../packages/console");
/** The console's sources: what a build depends on (besides node_modules, pinned by the lockfile). */
const INPUTS = ["src", "index.html", "vite.config.ts", "package.json", "../../pnpm-lock.yaml"];
/** Beside the assets directory, not in it: nothing but the console is served. */
const WORK_DIR = dirname(ASSETS_DIR);
const LOCK_STALE_MS = 5 * 60_000;
/** Files of earlier builds are kept this long: a page loaded before a rebuild still works. */
const STALE_FILE_MS = 10 * 60_000;

export async function buildConsoleAssets(outDir = join(ASSETS_DIR, "console")) {
  const stamp = join(WORK_DIR, "console-assets.source-hash");
  const hash = await sourceHash();
  const built = async () =>
    (await readFile(stamp, "utf8").catch(() => "")) === hash &&
    (await stat(join(outDir, "index.html")).then(
      () => true,
      () => false,
    ));
  if (await built()) return outDir;
  const lock = join(WORK_DIR, "console-assets.lock");
  await acquire(lock);
  try {
    // Another stack may have built it while this one waited.
    if (await built()) return outDir;
    const staging = join(WORK_DIR, `console-assets.${process.pid}.tmp`);
    await rm(staging, { recursive: true, force: true });
    await viteBuild(staging);
    const current = await moveInto(staging, outDir);
    await pruneOldFiles(outDir, current);
    await writeFile(stamp, hash);
    await rm(staging, { recursive: true, force: true });
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
  return outDir;
}

async function sourceHash() {
  const digest = createHash("sha256");
  for (const input of INPUTS) {
    for (const file of await filesUnder(join(CONSOLE_DIR, input))) {
      digest
        .update(relative(CONSOLE_DIR, file))
        .update("\0")
        .update(await readFile(file));
    }
  }
  return digest.digest("hex");
}

async function filesUnder(path) {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((entry) => filesUnder(join(path, entry.name))),
  );
  return nested.flat();
}

async function acquire(lock) {
  await mkdir(dirname(lock), { recursive: true });
  for (;;) {
    try {
      await mkdir(lock);
      return;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > LOCK_STALE_MS) await rm(lock, { recursive: true, force: true });
      else await new Promise((done) => setTimeout(done, 250));
    }
  }
}

/** `vite build` of the pinned Vite (packages/console's devDependency), into `outDir`. */
function viteBuild(outDir) {
  const require = createRequire(join(CONSOLE_DIR, "package.json"));
  const vite = join(dirname(require.resolve("vite/package.json")), "bin/vite.js");
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [vite, "build", "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"],
      { cwd: CONSOLE_DIR, stdio: "inherit" },
    );
    child.on("error", fail);
    child.on("exit", (code) =>
      code === 0 ? done() : fail(new Error(`vite build exited with ${code}`)),
    );
  });
}

/** Moves each built file into place atomically; index.html last (it names the others). */
async function moveInto(from, to) {
  const files = (await filesUnder(from)).map((file) => relative(from, file));
  files.sort((a, b) => Number(a === "index.html") - Number(b === "index.html"));
  for (const file of files) {
    const destination = join(to, file);
    await mkdir(dirname(destination), { recursive: true });
    const temporary = `${destination}.${process.pid}.tmp`;
    await copyFile(join(from, file), temporary);
    await rename(temporary, destination);
  }
  return new Set(files);
}

/** Removes files of earlier builds written more than STALE_FILE_MS ago. */
async function pruneOldFiles(outDir, current) {
  const cutoff = Date.now() - STALE_FILE_MS;
  for (const file of await filesUnder(outDir)) {
    if (current.has(relative(outDir, file))) continue;
    if ((await stat(file)).mtimeMs < cutoff) await rm(file, { force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    await buildConsoleAssets();
  } catch (error) {
    if (process.env.QUARRY_CONSOLE_BUILD !== "optional") throw error;
    console.warn(`console not rebuilt (previous build kept, if any): ${error.message}`);
  }
}
