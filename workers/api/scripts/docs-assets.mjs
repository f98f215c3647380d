#!/usr/bin/env node
/**
 * Fills the api worker's static assets directory (wrangler.toml `[assets]`) from node_modules:
 * `/docs` renders with the Scalar bundle of the pinned `@scalar/api-reference` dependency,
 * served by the app itself, so the page works offline and never loads code from a CDN.
 * The bundle (3.5 MB, ~1 MB gzip) is an asset, not part of the worker's JS (1 MiB budget).
 *
 * Run by wrangler's `[build] command` (`wrangler deploy`, `pnpm build:check`) and by the local
 * stack before `wrangler dev` (`pnpm dev`, the e2e tests). Idempotent and safe to run from
 * parallel stacks: an unchanged file is left alone, a changed one is replaced atomically.
 * Plain Node (no TypeScript, no dependencies) so wrangler can run it as is.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** wrangler.toml's `[assets] directory` (gitignored: built, never committed). */
export const ASSETS_DIR = resolve(here, "../../../.build/api-assets");

/** asset path (also its URL path) → the file in node_modules it is copied from */
const FILES = {
  "docs/scalar.js": "@scalar/api-reference/browser/standalone.js",
};

export async function buildDocsAssets(outDir = ASSETS_DIR) {
  // Resolved from workers/api, whose package.json pins the version.
  const require = createRequire(join(here, "../package.json"));
  for (const [target, specifier] of Object.entries(FILES)) {
    const source = await readFile(require.resolve(specifier));
    const destination = join(outDir, target);
    const current = await readFile(destination).catch(() => undefined);
    if (current?.equals(source)) continue;
    await mkdir(dirname(destination), { recursive: true });
    const temporary = `${destination}.${process.pid}.tmp`;
    await writeFile(temporary, source);
    await rename(temporary, destination);
  }
  return outDir;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await buildDocsAssets();
}
