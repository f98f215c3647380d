import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { call } from "./support/client.ts";
import {
  consoleOrigin,
  maybeScreenshot,
  openConsoleTab,
  useConsoleTab,
} from "./support/console-browser.ts";
import {
  blur,
  focusedLabel,
  focusedLogId,
  horizontalOverflow,
  signIn,
} from "./support/console-review-browser.ts";
import { withSql } from "./support/database-fingerprint.ts";
import { postEndpoint } from "./support/seed.ts";

/**
 * Log review in the console (issue 16, item 6) in Debian's chromium against the real stack:
 * 61 logs of a `local/echo` endpoint (one failed with a 502), judged from the keyboard (rate,
 * comment, select and rate several), filtered by rating, comments, user and status, paged,
 * and exported; then a 10,000-log endpoint paged through, timed.
 */
let endpointId: string;

const QUESTIONS = 60;
const question = (i: number) => `question ${i}`;
const userOf = (i: number) => (i % 2 === 0 ? "ana" : "ben");

async function complete(values: Record<string, string>, user: string) {
  const reply = await call(`/api/endpoints/${endpointId}/completions`, {
    method: "POST",
    token: ui.tenant.key,
    body: { values, user, prompt: [] },
  });
  return reply;
}

/** E7 with the filters as query parameters. */
async function listed(query: Record<string, string> = {}) {
  const params = new URLSearchParams({ page_size: "1000", ...query });
  const reply = await call(`/endpoints/${endpointId}/logs?${params}`, { token: ui.tenant.key });
  if (reply.status !== 200) throw new Error(`E7: ${reply.status} ${reply.text}`);
  return reply.body as { id: string; completion: string; positive_rating: boolean | null }[];
}

const ui = useConsoleTab("console-logs", {
  seed: async () => {
    const endpoint = await postEndpoint(ui.tenant.key, {
      name: "Reviewed",
      model: "openai/fail:500",
      prompt: "Q: {{q}}",
    });
    endpointId = endpoint.body.id;
    // The oldest log: a provider failure, logged with its 502.
    expect((await complete({ q: "fails" }, "carl")).status).toBe(502);
    await call(`/api/endpoints/${endpointId}`, {
      method: "PATCH",
      token: ui.tenant.key,
      body: { model: "local/echo" },
    });
    // One at a time: each log is newer than the one before (the list is newest first).
    for (let i = 0; i < QUESTIONS; i++) {
      const reply = await complete({ q: question(i) }, userOf(i));
      if (reply.status !== 200) throw new Error(`completion ${i}: ${reply.text}`);
    }
  },
  setupTimeout: 180_000,
});

const rows = (page: Page) => page.locator("[data-log-id]");
const currentRow = (page: Page) => page.locator('[data-log-id][aria-current="true"]');
const announcer = (page: Page) => page.getByTestId("announcer");
const filters = (page: Page) => page.getByRole("form", { name: "Filter logs" });

/** RFC 4180 records (quoted cells with doubled quotes, CRLF or LF), enough to read an export. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted && char === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (quoted && char === '"') {
      quoted = false;
    } else if (quoted) {
      cell += char;
    } else if (char === '"') {
      quoted = true;
    } else if (char === ",") {
      record.push(cell);
      cell = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      record.push(cell);
      records.push(record);
      record = [];
      cell = "";
    } else {
      cell += char;
    }
  }
  if (cell !== "" || record.length > 0) records.push([...record, cell]);
  return records;
}

async function waitForRows(page: Page, count: number) {
  await expect.poll(() => rows(page).count(), { timeout: 30_000 }).toBe(count);
}

describe("console: log review", () => {
  it("lists the newest logs first and judges them from the keyboard", async () => {
    const { page } = ui.tab;
    await signIn(page, ui.tenant.key, "/console/logs");
    await page.getByRole("link", { name: "Reviewed" }).click();
    await waitForRows(page, 50);
    expect(await rows(page).first().textContent()).toContain(`Q: ${question(59)}`);
    expect(await currentRow(page).textContent()).toContain(question(59));
    // The detail pane shows the log under the cursor.
    expect(await page.getByTestId("log-completion").textContent()).toBe(`Q: ${question(59)}`);

    // The keys are on the page, and "?" lists them all.
    expect(await page.getByText("all keys").isVisible()).toBe(true);
    await page.keyboard.press("?");
    const help = page.getByRole("region", { name: "Keyboard shortcuts" });
    expect(await help.getByText("Thumbs up (the selection, if any)").isVisible()).toBe(true);
    await page.keyboard.press("Escape");
    expect(await help.count()).toBe(0);

    // + rates the log up and moves on; - rates the next one down.
    await page.keyboard.press("+");
    await expect.poll(() => announcer(page).textContent()).toBe("Rated thumbs up");
    expect(await currentRow(page).textContent()).toContain(question(58));
    await page.keyboard.press("-");
    await expect.poll(() => announcer(page).textContent()).toBe("Rated thumbs down");
    expect(await currentRow(page).textContent()).toContain(question(57));
    // The row's button has focus: a screen reader follows the cursor.
    expect(await focusedLogId(page)).toBe(await currentRow(page).getAttribute("data-log-id"));

    // c opens the comment box; Ctrl+Enter saves; focus comes back to the list.
    await page.keyboard.press("c");
    expect(await focusedLabel(page)).toBe("Add a comment");
    await page.keyboard.type("Cites no source");
    await page.keyboard.press("Control+Enter");
    await expect.poll(() => announcer(page).textContent()).toBe("Comment saved");
    expect(await page.getByText("Cites no source").isVisible()).toBe(true);
    expect(await focusedLogId(page)).toBe(await currentRow(page).getAttribute("data-log-id"));

    // j moves on; x selects two logs; u rates both at once.
    await page.keyboard.press("j");
    await page.keyboard.press("x");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("x");
    expect(await page.getByTestId("selection-count").textContent()).toBe("2 selected");
    await page.keyboard.press("u");
    await expect.poll(() => announcer(page).textContent()).toBe("Rated 2 logs thumbs up");
    expect(await page.getByTestId("selection-count").textContent()).toBe("None selected");

    // What the API stored.
    const positive = (await listed({ rating: "positive" })).map((l) => l.completion);
    expect(positive).toEqual([question(59), question(56), question(55)].map((q) => `Q: ${q}`));
    const negative = (await listed({ rating: "negative" })).map((l) => l.completion);
    expect(negative).toEqual([`Q: ${question(58)}`]);
    const commented = (await listed({ has_comments: "true" })).map((l) => l.completion);
    expect(commented).toEqual([`Q: ${question(57)}`]);

    // The thumbs in the detail pane: clicking the pressed one clears the rating.
    await page.keyboard.press("k");
    const up = page.getByRole("button", { name: "Thumbs up", exact: true });
    expect(await up.getAttribute("aria-pressed")).toBe("true");
    await up.click();
    await expect.poll(() => up.getAttribute("aria-pressed")).toBe("false");
    expect((await listed({ rating: "positive" })).map((l) => l.completion)).toEqual(
      [question(59), question(55)].map((q) => `Q: ${q}`),
    );
    await up.click();
    await expect.poll(() => up.getAttribute("aria-pressed")).toBe("true");
    await page.evaluate("window.scrollTo(0, 0)");
    await maybeScreenshot(page, "logs");
    expect(ui.tab.errors).toEqual([]);
    expect(ui.tab.blocked).toEqual([]);
    expect(await ui.tab.cspViolations()).toEqual([]);
  }, 120_000);

  it("filters by rating, comments, user and status, and pages", async () => {
    const { page } = ui.tab;
    await filters(page).getByLabel("Rating", { exact: true }).selectOption("positive");
    await waitForRows(page, 3);
    expect(new URL(page.url()).searchParams.get("rating")).toBe("positive");

    await filters(page).getByLabel("Rating", { exact: true }).selectOption("");
    await filters(page).getByLabel("Comments", { exact: true }).selectOption("true");
    await waitForRows(page, 1);
    expect(await rows(page).first().textContent()).toContain(question(57));

    await filters(page).getByRole("button", { name: "Clear", exact: true }).click();
    await filters(page).getByLabel("User", { exact: true }).fill("ben");
    await filters(page).getByLabel("User", { exact: true }).press("Enter");
    await waitForRows(page, 30);
    await filters(page).getByLabel("User", { exact: true }).fill("");
    await filters(page).getByLabel("Status", { exact: true }).fill("502");
    await filters(page).getByLabel("Status", { exact: true }).press("Enter");
    await waitForRows(page, 1);
    expect(await page.getByText("502").first().isVisible()).toBe(true);

    // A reloaded URL keeps its filters.
    await page.reload();
    await waitForRows(page, 1);
    expect(await filters(page).getByLabel("Status", { exact: true }).inputValue()).toBe("502");

    // A range that ends before today holds nothing; the empty state offers to clear it.
    await filters(page).getByRole("button", { name: "Clear", exact: true }).click();
    await filters(page).getByLabel("To", { exact: true }).fill("2020-01-01");
    await expect
      .poll(() => page.getByText("No logs match these filters").isVisible(), { timeout: 15_000 })
      .toBe(true);
    await page.getByRole("button", { name: "Clear the filters" }).click();
    await waitForRows(page, 50);

    // 61 logs: 50 on page 1, 11 on page 2 ("n"), and back ("p").
    await blur(page);
    await page.keyboard.press("n");
    await waitForRows(page, 11);
    expect(await rows(page).last().textContent()).toContain("carl");
    await page.keyboard.press("p");
    await waitForRows(page, 50);
  }, 120_000);

  it("exports the filtered logs with their ratings and comments", async () => {
    const { page } = ui.tab;
    await filters(page).getByLabel("Rating", { exact: true }).selectOption("positive");
    await waitForRows(page, 3);
    const [jsonl] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export JSONL" }).click(),
    ]);
    const records = (await readFile((await jsonl.path())!, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.map((r) => r.completion)).toEqual(
      [question(59), question(56), question(55)].map((q) => `Q: ${q}`),
    );
    for (const record of records) {
      expect(record).toMatchObject({ rating: "positive", positive_rating: true, comments: [] });
    }

    await filters(page).getByLabel("Rating", { exact: true }).selectOption("");
    await filters(page).getByLabel("Comments", { exact: true }).selectOption("true");
    await waitForRows(page, 1);
    const [csv] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export CSV" }).click(),
    ]);
    expect(csv.suggestedFilename()).toBe(`logs-${endpointId}.csv`);
    const [header, ...lines] = parseCsv(await readFile((await csv.path())!, "utf8"));
    const data = lines.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i]])));
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      completion: `Q: ${question(57)}`,
      rating: "unrated",
      user_id: userOf(57),
    });
    expect(JSON.parse(data[0]!.comments!)).toEqual([
      expect.objectContaining({ comment: "Cites no source" }),
    ]);
    expect(ui.tab.errors).toEqual([]);
  }, 120_000);

  it("under Not rated, moving on after rating skips no log", async () => {
    const { page } = ui.tab;
    await filters(page).getByRole("button", { name: "Clear", exact: true }).click();
    const unratedBefore = (await listed({ rating: "unrated", page_size: "50" })).map((l) => l.id);
    await filters(page).getByLabel("Rating", { exact: true }).selectOption("unrated");
    // The filtered page, not the previous one kept on screen while it loads.
    await expect
      .poll(() => rows(page).first().getAttribute("data-log-id"), { timeout: 15_000 })
      .toBe(unratedBefore[0]);
    await waitForRows(page, 50);
    await blur(page);
    await page.keyboard.press("+");
    await page.keyboard.press("+");
    await expect
      .poll(() => page.locator(".log-item").nth(1).getAttribute("data-rating"))
      .toBe("up");
    // E7 pages by position: page 2 of what is still unrated would start 2 logs too far.
    await page.keyboard.press("n");
    await expect
      .poll(() => announcer(page).textContent())
      .toBe("2 reviewed logs left the list; showing what remains");
    await expect.poll(() => rows(page).first().getAttribute("data-log-id")).toBe(unratedBefore[2]);
    expect(new URL(page.url()).searchParams.get("page")).toBeNull();
    const unrated = await listed({ rating: "unrated", page_size: "50" });
    expect(
      await rows(page).evaluateAll((b) => b.map((e) => e.getAttribute("data-log-id"))),
    ).toEqual(unrated.map((l) => l.id));
  }, 120_000);

  it("shows an API error where it happened, and fits a phone's width", async () => {
    const phone = await openConsoleTab(ui.browser, { width: 390, height: 844 });
    try {
      await signIn(phone.page, ui.tenant.key, `/console/logs/${endpointId}`);
      await waitForRows(phone.page, 50);
      const overflow = await horizontalOverflow(phone.page);
      expect(overflow).toBeLessThanOrEqual(0);
      await maybeScreenshot(phone.page, "logs-phone");

      // A fresh tab knows nothing from E10's replies: comments and cost come from the API.
      await phone.page.goto(`${consoleOrigin()}/console/logs/${endpointId}?has_comments=true`);
      await waitForRows(phone.page, 1);
      await expect
        .poll(() => phone.page.getByText("Cites no source").isVisible(), { timeout: 15_000 })
        .toBe(true);
      expect(await phone.page.getByTestId("log-cost").textContent()).toBe("$0");

      // An unknown endpoint: the envelope's message, not a blank page.
      await phone.page.goto(`${consoleOrigin()}/console/logs/ep_missing`);
      const alert = phone.page.getByRole("alert").first();
      await expect.poll(() => alert.isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await alert.textContent()).toMatch(/not found/i);
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.context.close();
    }
  }, 120_000);

  it("keeps a 10,000-log endpoint responsive: every page in well under a second", async () => {
    const big = await postEndpoint(ui.tenant.key, {
      name: "Busy",
      model: "local/echo",
      prompt: "{{q}}",
    });
    const busyId: string = big.body.id;
    await withSql((sql) =>
      sql.query(
        `INSERT INTO logs (id, project_id, endpoint_id, deployment_id, user_id, model,
           service_model_name, prompt, completion, status, latency_ms, created_at)
         SELECT 'log_' || $2 || '_' || n, $1, $2, 1, 'u' || (n % 7), 'echo', 'local/echo',
           to_jsonb('prompt ' || n), 'answer ' || n, 200, 12,
           now() - make_interval(secs => 10000 - n)
         FROM generate_series(1, 10000) AS n`,
        [ui.tenant.projectId, busyId],
      ),
    );
    // A tab of its own, signed in on another endpoint's page: the timings start from there.
    const own = await openConsoleTab(ui.browser);
    const { page } = own;
    await signIn(page, ui.tenant.key, `/console/logs/${endpointId}`);
    const timed = async (action: () => Promise<unknown>, first: string) => {
      const started = Date.now();
      await action();
      await expect
        .poll(() => rows(page).first().textContent(), { timeout: 15_000, interval: 20 })
        .toContain(first);
      return Date.now() - started;
    };
    const open = await timed(
      () => page.goto(`${consoleOrigin()}/console/logs/${busyId}`),
      "answer 10000",
    );
    await waitForRows(page, 50);
    await blur(page);
    const next = await timed(() => page.keyboard.press("n"), "answer 9950");
    const deep = await timed(
      () => page.goto(`${consoleOrigin()}/console/logs/${busyId}?page=200`),
      "answer 50",
    );
    await waitForRows(page, 50);
    // Judging: one key per log, as fast as a person can press it; every rating is stored.
    await blur(page);
    const judging = Date.now();
    for (let i = 0; i < 50; i++) await page.keyboard.press("u");
    const positive = async () => {
      const reply = await call(`/endpoints/${busyId}/logs?rating=positive&page_size=1000`, {
        token: ui.tenant.key,
      });
      return (reply.body as unknown[]).length;
    };
    await expect.poll(positive, { timeout: 30_000, interval: 100 }).toBe(50);
    const judged = Date.now() - judging;
    console.log(
      `10k logs: open ${open} ms, next page ${next} ms, page 200 ${deep} ms; 50 logs rated from the keyboard and stored in ${judged} ms`,
    );
    expect(judged).toBeLessThan(20_000);
    expect(own.errors).toEqual([]);
    await own.context.close();
    expect(next).toBeLessThan(1000);
    expect(open).toBeLessThan(3000);
    expect(deep).toBeLessThan(3000);
  }, 120_000);
});
