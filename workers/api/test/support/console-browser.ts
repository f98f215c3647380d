import { mkdir } from "node:fs/promises";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, inject } from "vitest";
import { cspViolations, launchChromium, recordCspViolations } from "./chromium.ts";
import { diagnose, logLength, type TrafficWatch, watchTraffic } from "./console-diagnosis.ts";
import { createTenant, type Tenant } from "./tenant.ts";

export { launchChromium } from "./chromium.ts";

/**
 * Debian's chromium (`pnpm browser:provision`) driven by playwright-core for the console's
 * dataset and search tests. Every request to another origin is refused (the console must work
 * offline); the page's uncaught errors and CSP refusals are collected for the tests to assert.
 */
export const consoleOrigin = () => new URL(inject("baseUrl")).origin;

export interface ConsoleTab {
  context: BrowserContext;
  page: Page;
  /** requests to another origin (refused) */
  blocked: string[];
  /** uncaught page errors */
  errors: string[];
  /** what the Content-Security-Policy refused, as "directive url" */
  cspViolations: () => Promise<string[]>;
  /** requests that failed, answered >= 400 or are unanswered (printed when a test fails) */
  traffic: TrafficWatch;
}

export async function openConsoleTab(
  browser: Browser,
  viewport = { width: 1280, height: 800 },
): Promise<ConsoleTab> {
  const context = await browser.newContext({ viewport });
  const blocked: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("blob:") || new URL(url).origin === consoleOrigin()) return route.continue();
    blocked.push(url);
    return route.abort("internetdisconnected");
  });
  await recordCspViolations(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const traffic = watchTraffic(page);
  return { context, page, blocked, errors, cspViolations: () => cspViolations(page), traffic };
}

export interface ConsoleSession {
  /** the file's own project and key */
  tenant: Tenant;
  browser: Browser;
  /** the tab the file's steps share */
  tab: ConsoleTab;
}

export interface ConsoleSessionOptions {
  /** the file's own data, created through the API before the browser starts */
  seed?: (tenant: Tenant) => Promise<void>;
  /** the tab's default wait for a locator, when not Playwright's own */
  defaultTimeout?: number;
  /** for beforeAll, when not the project's hookTimeout */
  setupTimeout?: number;
}

/**
 * Registers the browser file's beforeAll (a new tenant, `seed`, chromium, one console tab) and
 * afterAll (closes them). The returned session is filled in once beforeAll has run.
 */
export function useConsoleTab(label: string, options: ConsoleSessionOptions = {}): ConsoleSession {
  const session = {} as ConsoleSession;
  beforeAll(async () => {
    session.tenant = await createTenant(label);
    await options.seed?.(session.tenant);
    session.browser = await launchChromium();
    session.tab = await openConsoleTab(session.browser);
    if (options.defaultTimeout) session.tab.page.setDefaultTimeout(options.defaultTimeout);
  }, options.setupTimeout);
  // A failed step says what the tab showed and what the stack did meanwhile, in its own
  // failure message: that is the part of a CI run's output that reaches the summary.
  const workerLog = inject("workerLog");
  let logFrom = 0;
  beforeEach(async () => {
    session.tab?.traffic.reset();
    logFrom = await logLength(workerLog);
  });
  afterEach(async ({ task }) => {
    if (task.result?.state !== "fail" || !session.tab) return;
    const report = await diagnose(session.tab.page, session.tab.traffic, {
      file: workerLog,
      from: logFrom,
    });
    const failure = task.result.errors?.[0];
    const explained = `[${label}] the console tab when "${task.name}" failed:\n${report}`;
    if (failure) failure.message = `${failure.message}\n\n${explained}`;
    else console.error(explained);
  });
  afterAll(async () => {
    await session.tab?.context.close();
    await session.browser?.close();
  });
  return session;
}

/** docs/screenshots/<name>.png, only when CONSOLE_SCREENSHOTS=1 (they are committed files). */
export async function maybeScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.CONSOLE_SCREENSHOTS !== "1") return;
  const dir = new URL("../../../../docs/screenshots/", import.meta.url);
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, dir).pathname });
}
