import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { call } from "./support/client.ts";
import { maybeScreenshot, openConsoleTab, useConsoleTab } from "./support/console-browser.ts";
import { horizontalOverflow, signIn } from "./support/console-review-browser.ts";
import { FAKE_REPLY } from "./support/fake-openai-server.ts";
import { postDataset, upsertRows } from "./support/seed.ts";

/**
 * The console's endpoint pages (issue 16, item 5) in Debian's chromium against the real
 * stack: create an endpoint with a template and a search block, see its variables, stream a
 * completion from the playground token by token (the loopback OpenAI server's `slow:<ms>`
 * model sends one word every <ms>), then save a new deployment.
 */
let datasetId: string;

const ui = useConsoleTab("console-endpoints", {
  seed: async () => {
    const dataset = await postDataset(ui.tenant.key, { name: "tides" });
    datasetId = dataset.body.id;
    await upsertRows(ui.tenant.key, datasetId, {
      rows: [{ data: { text: "Tides follow the moon." } }],
    });
  },
});

/** Waits for the playground's run to end, and says how it ended when it was not a success. */
async function finished(page: Page) {
  const status = page.getByTestId("run-status");
  await expect
    .poll(() => status.textContent(), { timeout: 30_000 })
    .toMatch(/^(Done|Failed|Stopped)/);
  const result = [
    await page.locator(".completion-result").textContent(),
    ...(await page.getByRole("alert").allTextContents()),
    ...ui.tab.errors,
  ].join("\n");
  expect(await status.textContent(), result).toBe("Done (stop)");
}

describe("console: endpoints", () => {
  it("creates an endpoint, showing its variables and the API's 400 where it happened", async () => {
    const { page } = ui.tab;
    await signIn(page, ui.tenant.key, "/console/endpoints");
    await expect
      .poll(() => page.getByText("No endpoints yet").isVisible(), { timeout: 30_000 })
      .toBe(true);
    await page.getByRole("link", { name: "New endpoint" }).click();

    await page.getByLabel("Name", { exact: true }).fill("Tide answers");
    await page.getByLabel("Model", { exact: true }).fill("openai/slow:150");
    await page.getByLabel("Prompt template").fill("Context: {{context}}\nQuestion: {{ question }}");
    const chips = page.getByRole("list", { name: "Template variables" });
    await expect
      .poll(() => chips.textContent())
      .toMatch(/context · values[\s\S]*question · values/);

    await page.getByRole("button", { name: "Add search block" }).click();
    const block = page.getByRole("group", { name: "Search block 1" });
    await block.getByLabel("Dataset").selectOption(datasetId);
    // A variable the template does not use: the API refuses to deploy it, and says why.
    await block.getByLabel("Fills variable").fill("background");
    await expect
      .poll(() => page.getByText("not in the template: the API will refuse").isVisible())
      .toBe(true);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "background" });
    await expect.poll(() => refusal.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await refusal.textContent()).toContain("request");

    await block.getByLabel("Fills variable").fill("context");
    await expect
      .poll(() => chips.textContent())
      .toMatch(/question · values[\s\S]*context · search/);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect
      .poll(() => page.getByRole("heading", { name: "Tide answers", level: 1 }).isVisible(), {
        timeout: 15_000,
      })
      .toBe(true);
    expect(await page.getByTestId("deployment-id").textContent()).toBe("1");

    const listed = await call("/api/endpoints", { token: ui.tenant.key });
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0]).toMatchObject({
      name: "Tide answers",
      model: "openai/slow:150",
      variables: ["question"],
      search: [{ dataset_id: datasetId, variable: "context", query: "{{question}}" }],
    });
  }, 120_000);

  it("streams a completion token by token, then shows the search results and usage", async () => {
    const { page } = ui.tab;
    await page.getByLabel("{{question}}").fill("Why do tides rise?");
    // Every change of the output's text, timed in the page, from the click on.
    await page.evaluate(`
      globalThis.outputSeen = [];
      new MutationObserver(() => {
        const output = document.querySelector("[data-testid=completion-output]");
        const text = output ? output.textContent : "";
        const last = globalThis.outputSeen.at(-1);
        if (!last || last.text !== text) globalThis.outputSeen.push({ at: performance.now(), text });
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await finished(page);

    expect(await page.getByTestId("completion-output").textContent()).toBe(FAKE_REPLY);
    const seen = (await page.evaluate("globalThis.outputSeen")) as { at: number; text: string }[];
    const partial = seen.filter((s) => s.text !== "" && s.text !== FAKE_REPLY);
    // 12 words, one per 150 ms: the page shows most of them on their own, growing by prefix.
    expect(partial.length).toBeGreaterThanOrEqual(5);
    for (const [i, s] of partial.entries()) {
      if (i > 0) expect(s.text.startsWith(partial[i - 1]!.text)).toBe(true);
      expect(FAKE_REPLY.startsWith(s.text)).toBe(true);
    }
    const spread = partial.at(-1)!.at - partial[0]!.at;
    expect(spread).toBeGreaterThan(600);

    const results = page.getByRole("heading", { name: /Search results \(1\)/ });
    expect(await results.isVisible()).toBe(true);
    expect(await page.getByText("Tides follow the moon.").first().isVisible()).toBe(true);
    expect(Number(await page.getByTestId("usage-completion").textContent())).toBe(
      FAKE_REPLY.split(" ").length,
    );
    expect(Number(await page.getByTestId("usage-prompt").textContent())).toBeGreaterThan(0);
    // The stream carries no costs: the page reads them from the completion's log.
    await expect.poll(() => page.getByTestId("cost").textContent()).toBe("$0");
    await maybeScreenshot(page, "endpoints");
  }, 120_000);

  it("shows the cost of a JSON completion, and saves an edit as a new deployment", async () => {
    const { page } = ui.tab;
    await page.getByLabel("Stream tokens").uncheck();
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await finished(page);
    // openai/slow is not in the price table: it costs nothing, and the page says so.
    expect(await page.getByTestId("cost").textContent()).toBe("$0");

    await page.getByLabel("Temperature").fill("0.3");
    await page.getByRole("button", { name: "Save as a new deployment" }).click();
    await expect.poll(() => page.getByTestId("deployment-id").textContent()).toBe("2");
    const saved = await call("/api/endpoints", { token: ui.tenant.key });
    expect(saved.body[0]).toMatchObject({ deployment_id: 2, temperature: 0.3 });
    expect(ui.tab.errors).toEqual([]);
    expect(ui.tab.blocked).toEqual([]);
    expect(await ui.tab.cspViolations()).toEqual([]);
  }, 120_000);

  it("fits a phone's width", async () => {
    const phone = await openConsoleTab(ui.browser, { width: 390, height: 844 });
    try {
      await signIn(phone.page, ui.tenant.key, "/console/endpoints");
      await expect
        .poll(
          () => phone.page.getByRole("link", { name: "Tide answers", exact: true }).isVisible(),
          {
            timeout: 30_000,
          },
        )
        .toBe(true);
      await phone.page.getByRole("link", { name: "Tide answers", exact: true }).click();
      await expect
        .poll(() => phone.page.getByRole("heading", { name: "Playground" }).isVisible())
        .toBe(true);
      // Nothing wider than the screen: no sideways scrolling.
      const overflow = await horizontalOverflow(phone.page);
      expect(overflow).toBeLessThanOrEqual(0);
      await maybeScreenshot(phone.page, "endpoints-phone");
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.context.close();
    }
  }, 120_000);
});
