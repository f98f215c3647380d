import { describe, expect, it } from "vitest";
import { adminToken, call } from "./support/client.ts";
import { consoleOrigin, maybeScreenshot, useConsoleTab } from "./support/console-browser.ts";

/**
 * The console's admin page in Debian's chromium: signed in with the admin token (remembered
 * on the device this time), it lists projects and their keys without ever showing a key,
 * and revokes one behind a confirmation, after which the API refuses that key.
 */
const ui = useConsoleTab(`console-admin-${Date.now()}`, {
  defaultTimeout: 15_000,
  setupTimeout: 60_000,
});

describe("the console, signed in with the admin token", () => {
  it("lists a project's keys by prefix and revokes one", async () => {
    const { page } = ui.tab;
    await page.goto(`${consoleOrigin()}/console/`);
    await page.getByLabel("Admin token").check();
    await page.getByLabel("Token", { exact: true }).fill(adminToken());
    await page.getByLabel("Remember on this device").check();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    expect(await page.evaluate("localStorage.length")).toBe(1);
    expect(await page.evaluate("sessionStorage.length")).toBe(0);

    // The tenant's project may be on a later page: page forward until it shows.
    const row = page.locator("tr", { hasText: ui.tenant.projectId });
    await page.locator("tbody tr").first().waitFor();
    // Each page is read once it has loaded (the pagination is busy until then), so no page is
    // skipped.
    const settled = page.locator('nav.pagination[aria-busy="false"]');
    while (!(await row.isVisible())) {
      await page.getByRole("button", { name: "Next →" }).click();
      await settled.waitFor();
    }
    await row.getByRole("button", { name: "Keys" }).click();
    const keyRow = page.locator("tr", { hasText: ui.tenant.keyId });
    await keyRow.waitFor();
    expect(await page.content()).not.toContain(ui.tenant.key);
    expect(await keyRow.textContent()).toContain(ui.tenant.key.slice(0, 10));
    await keyRow.scrollIntoViewIfNeeded();
    await maybeScreenshot(page, "console-admin");

    expect((await call("/api/datasets", { token: ui.tenant.key })).status).toBe(200);
    await keyRow.getByRole("button", { name: /Revoke key/ }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).click();
    await keyRow.getByText(/revoked/).waitFor();
    expect((await call("/api/datasets", { token: ui.tenant.key })).status).toBe(401);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await page.evaluate("localStorage.length + sessionStorage.length")).toBe(0);
    expect(ui.tab.blocked).toEqual([]);
    expect(ui.tab.errors).toEqual([]);
    expect(await ui.tab.cspViolations()).toEqual([]);
  }, 90_000);
});
