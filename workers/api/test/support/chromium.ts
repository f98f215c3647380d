import { access } from "node:fs/promises";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/**
 * Debian's chromium (`pnpm browser:provision`, or CHROMIUM_PATH), launched by playwright-core
 * for the browser tests and the console measurements. Background traffic (updates, sync,
 * QUIC) is off: those pages must load from the stack's own origin alone.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  await access(CHROMIUM).catch(() => {
    throw new Error(
      `no browser at ${CHROMIUM}: run \`pnpm browser:provision\` (or set CHROMIUM_PATH)`,
    );
  });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** Makes the pages of `target` record what their Content-Security-Policy refuses. */
export async function recordCspViolations(target: BrowserContext | Page): Promise<void> {
  // A string: it runs in the page, and this project's TypeScript has no DOM types.
  await target.addInitScript({
    content: `globalThis.cspViolations = [];
      document.addEventListener("securitypolicyviolation", (event) =>
        globalThis.cspViolations.push(event.effectiveDirective + " " + event.blockedURI));`,
  });
}

/** What the page's Content-Security-Policy refused so far, as "directive url". */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as { cspViolations?: string[] }).cspViolations ?? []);
}
