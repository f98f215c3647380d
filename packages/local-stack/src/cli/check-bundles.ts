import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/**
 * Reports the gzip size of each `wrangler deploy --dry-run --outdir` bundle and fails when one
 * is over its budget: the api worker 1 MiB (every request pays its cold start, so PDF parsing
 * stays out of it), the ingest worker 3 MiB — Cloudflare's limit on the Free plan; it carries
 * unpdf (pdf.js) and the CJK CMaps.
 */
const MiB = 1024 * 1024;
const LIMITS: Record<string, number> = { api: MiB, ingest: 3 * MiB };
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
console.log(JSON.stringify({ bundles: report, limits_gzip: LIMITS }));
for (const [worker, size] of Object.entries(report)) {
  // An empty bundle means the dry run wrote somewhere else: as wrong as an oversized one.
  const limit = LIMITS[worker]!;
  if (size.raw === 0 || size.gzip > limit) {
    const problem = size.raw === 0 ? "missing" : `over ${limit / MiB} MiB gzip`;
    console.error(`the ${worker} worker bundle is ${problem}`);
    process.exit(1);
  }
}
