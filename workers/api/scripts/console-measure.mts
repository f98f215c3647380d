/**
 * Measures the console on a running stack (issue 16, "Done when"):
 * - first-load JavaScript: the scripts /console's page loads before it can render, gzipped
 *   (level 9, what a CDN serves at least), budget 250 KB;
 * - time to interactive: in Debian's chromium, `performance.now()` when the sign-in form is
 *   mounted and usable (the page's own `quarry:sign-in-interactive` mark), budget 1 s; cold
 *   (a fresh browser profile: nothing cached) and warm (reloaded) loads, median of RUNS.
 *
 *   QUARRY_BASE=http://127.0.0.1:8787 node --import tsx workers/api/scripts/console-measure.mts
 */
import { gzipSync } from "node:zlib";
import { launchChromium } from "../test/support/chromium.ts";

const BASE = (process.env.QUARRY_BASE ?? "http://127.0.0.1:8787").replace(/\/$/, "");
const RUNS = Number(process.env.RUNS ?? 7);
const MARK = "quarry:sign-in-interactive";

async function firstLoadJs() {
  const html = await (await fetch(`${BASE}/console/`)).text();
  const scripts = [
    ...html.matchAll(/<script[^>]+src="([^"]+)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
  ].map((m) => m[1]!);
  const styles = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map(
    (m) => m[1]!,
  );
  const sizes = async (paths: string[]) =>
    Promise.all(
      paths.map(async (path) => {
        const bytes = Buffer.from(await (await fetch(`${BASE}${path}`)).arrayBuffer());
        return { path, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
      }),
    );
  const js = await sizes(scripts);
  const css = await sizes(styles);
  const total = (files: { raw: number; gzip: number }[]) => ({
    raw: files.reduce((sum, f) => sum + f.raw, 0),
    gzip: files.reduce((sum, f) => sum + f.gzip, 0),
  });
  return { js: total(js), css: total(css), files: [...js, ...css] };
}

async function timeToInteractive() {
  const browser = await launchChromium();
  const cold: number[] = [];
  const warm: number[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const measure = async () => {
        await page.getByRole("button", { name: "Sign in" }).waitFor();
        return page.evaluate(
          `performance.getEntriesByName(${JSON.stringify(MARK)})[0]?.startTime ?? NaN`,
        ) as Promise<number>;
      };
      await page.goto(`${BASE}/console/`);
      cold.push(await measure());
      await page.reload();
      warm.push(await measure());
      await context.close();
    }
  } finally {
    await browser.close();
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  return {
    runs: RUNS,
    cold_ms: { median: Math.round(median(cold)), max: Math.round(Math.max(...cold)) },
    warm_ms: { median: Math.round(median(warm)), max: Math.round(Math.max(...warm)) },
  };
}

const bundle = await firstLoadJs();
const tti = await timeToInteractive();
const report = {
  base: BASE,
  first_load_js_gzip_bytes: bundle.js.gzip,
  first_load_js_raw_bytes: bundle.js.raw,
  css_gzip_bytes: bundle.css.gzip,
  files: bundle.files,
  time_to_interactive: tti,
  budgets: { first_load_js_gzip_bytes: 250_000, time_to_interactive_ms: 1000 },
};
console.log(JSON.stringify(report, null, 2));
if (bundle.js.gzip > 250_000 || tti.cold_ms.median > 1000) process.exitCode = 1;
