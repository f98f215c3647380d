import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/**
 * Reports the gzip size of each `wrangler deploy --dry-run --outdir` bundle and fails when
 * the api worker exceeds Cloudflare's 1 MiB (free plan) limit.
 */
const LIMIT = 1024 * 1024;
const report: Record<string, { raw: number; gzip: number }> = {};
for (const worker of ["api", "ingest"]) {
  const dir = join(".build", worker);
  let raw = 0;
  const chunks: Buffer[] = [];
  for (const file of await readdir(dir)) {
    if (!/\.(js|mjs|wasm)$/.test(file)) continue;
    raw += (await stat(join(dir, file))).size;
    chunks.push(await readFile(join(dir, file)));
  }
  report[worker] = { raw, gzip: gzipSync(Buffer.concat(chunks), { level: 9 }).length };
}
console.log(JSON.stringify({ bundles: report, limit_gzip: LIMIT }));
for (const [worker, size] of Object.entries(report)) {
  // An empty bundle means the dry run wrote somewhere else: as wrong as an oversized one.
  if (size.raw === 0 || size.gzip > LIMIT) {
    console.error(
      `the ${worker} worker bundle is ${size.raw === 0 ? "missing" : "over 1 MiB gzip"}`,
    );
    process.exit(1);
  }
}
