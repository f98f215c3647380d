import type { Page } from "playwright-core";
import { expect } from "vitest";
import { consoleOrigin } from "./console-browser.ts";

/**
 * What the endpoint and log-review browser tests share beyond console-browser.ts (the browser,
 * the offline tab, screenshots): signing in, and page-side checks, written as expression
 * strings since this project's TypeScript has no DOM types.
 */

/** Signs in with a project key through the console's own form, at `path`. */
export async function signIn(page: Page, key: string, path = "/console/"): Promise<void> {
  await page.goto(`${consoleOrigin()}${path}`);
  await page.getByLabel("API key", { exact: true }).fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect
    .poll(() => page.getByRole("button", { name: "Sign out" }).isVisible(), { timeout: 30_000 })
    .toBe(true);
}

/** The `data-log-id` of the focused element (a log row's button), or null. */
export async function focusedLogId(page: Page): Promise<string | null> {
  return (await page.evaluate(
    "document.activeElement ? document.activeElement.getAttribute('data-log-id') : null",
  )) as string | null;
}

/** The text of the focused field's label, or null. */
export async function focusedLabel(page: Page): Promise<string | null> {
  return (await page.evaluate(
    "document.activeElement && document.activeElement.labels && document.activeElement.labels[0] ? document.activeElement.labels[0].textContent : null",
  )) as string | null;
}

/** Leaves a field, so that keys go to the page again. */
export async function blur(page: Page): Promise<void> {
  await page.evaluate("document.activeElement && document.activeElement.blur()");
}

/** How far the page is wider than the screen (> 0: it scrolls sideways). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return (await page.evaluate(
    "document.documentElement.scrollWidth - document.documentElement.clientWidth",
  )) as number;
}
