import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { buildPdf } from "../../../packages/core/test/parsing/support/pdf-builder.ts";
import { call } from "./support/client.ts";
import { consoleOrigin, maybeScreenshot, useConsoleTab } from "./support/console-browser.ts";
import { expectOwnOriginCsp } from "./support/csp.ts";
import { upsertRows } from "./support/seed.ts";

/**
 * The console's datasets and search pages in Debian's chromium against the real stack, as a
 * person uses them: sign in, create a dataset, upload a PDF and a CSV and watch them reach
 * `ready`, search in every mode, see a bad filter's 400 in place, edit and delete a row.
 * The steps share one tab and run in order; each checks what the API stored, not only the page.
 */
let page: Page;
let datasetId = "";
const DATASET = `console datasets ${Date.now()}`;

const ui = useConsoleTab("console-datasets", { defaultTimeout: 15_000, setupTimeout: 60_000 });
beforeAll(() => {
  page = ui.tab.page;
});

// Page-side expressions as strings: this project's TypeScript has no DOM types.
const TAB_KEYS = "sessionStorage.length";
const REMEMBERED_KEYS = "localStorage.length";
const STORED_KEYS = "sessionStorage.length + localStorage.length";
const HORIZONTAL_OVERFLOW =
  "document.documentElement.scrollWidth - document.documentElement.clientWidth";

const visible = (locator: ReturnType<Page["getByText"]>, timeout = 15_000) =>
  locator.first().waitFor({ state: "visible", timeout });

describe("the console, signed in with a project key", () => {
  it("is served at /console with an own-origin CSP, deep links included", async () => {
    for (const path of ["/console", "/console/", "/console/datasets/some/deep/link"]) {
      const reply = await call(path);
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get("content-type")).toMatch(/text\/html/);
      expect(reply.text).toContain('<div id="root">');
    }
    const csp = (await call("/console")).headers.get("content-security-policy") ?? "";
    expectOwnOriginCsp(csp);
    // A missing hashed file is a 404, not the page (a stale tab must not parse HTML as JS).
    expect((await call("/console/assets/missing-0000.js")).status).toBe(404);
  });

  it("refuses a wrong key in place with the API's message, then signs in", async () => {
    await page.goto(`${consoleOrigin()}/console/`);
    await maybeScreenshot(page, "console-sign-in");
    await page.getByLabel("API key").fill("qry_not-a-real-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    const alert = page.getByRole("alert");
    await visible(alert);
    expect(await alert.textContent()).toMatch(/key/i);
    expect(await page.evaluate(STORED_KEYS)).toBe(0);

    await page.getByLabel("API key").fill(ui.tenant.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await visible(page.getByRole("heading", { name: "Datasets" }));
    // Kept for the tab only: "remember on this device" was not ticked.
    expect(await page.evaluate(REMEMBERED_KEYS)).toBe(0);
    expect(await page.evaluate(TAB_KEYS)).toBe(1);
    await visible(page.getByText("No datasets yet"));
  }, 60_000);

  it("creates a dataset with a typed metadata column", async () => {
    await page.getByRole("button", { name: "New dataset" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name", { exact: true }).fill(DATASET);
    await dialog.getByRole("button", { name: "Add metadata column" }).click();
    await dialog.getByLabel("Metadata column 1 name").fill("year");
    await dialog.getByLabel("Metadata column 1 type").selectOption("number");
    await dialog.getByRole("button", { name: "Create dataset" }).click();
    await visible(page.getByRole("heading", { name: DATASET }));
    datasetId = new URL(page.url()).pathname.split("/").pop()!;

    const stored = await call(`/api/datasets/${datasetId}`, { token: ui.tenant.key });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      name: DATASET,
      kind: "hybrid",
      metadata_columns: [{ name: "year", type: "number" }],
    });
  }, 60_000);

  it("uploads a PDF and a CSV that reach ready; a refused file shows the API message on it", async () => {
    await page.getByRole("tab", { name: "Add documents" }).click();
    await page.getByLabel("Choose files to upload").setInputFiles([
      { name: "telescopes.pdf", mimeType: "application/pdf", buffer: Buffer.from(telescopesPdf()) },
      { name: "planets.csv", mimeType: "text/csv", buffer: Buffer.from(PLANETS_CSV) },
    ]);
    for (const name of ["telescopes.pdf", "planets.csv"]) {
      const item = page.locator(`[data-upload="${name}"]`);
      await visible(item.getByText("ready", { exact: true }), 90_000);
    }
    await maybeScreenshot(page, "console-upload");

    // A refused upload shows the API's message on that file, where it happened.
    const binary = Buffer.from([0, 1, 2, 3, 0, 255, 254, 0, 7, 8]);
    await page
      .getByLabel("Choose files to upload")
      .setInputFiles([{ name: "notes.txt", mimeType: "text/plain", buffer: binary }]);
    const refused = await fetch(`${consoleOrigin()}/api/datasets/${datasetId}/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${ui.tenant.key}` },
      body: uploadForm("notes.txt", binary),
    });
    expect(refused.status).toBe(415);
    const { error } = (await refused.json()) as { error: { message: string } };
    await visible(
      page.locator('[data-upload="notes.txt"]').getByRole("alert").getByText(error.message),
    );

    const documents = await call(`/api/datasets/${datasetId}/documents`, { token: ui.tenant.key });
    expect(documents.status).toBe(200);
    const byName = Object.fromEntries(
      (documents.body as { filename: string; status: string; row_count: number }[]).map((d) => [
        d.filename,
        d,
      ]),
    );
    expect(byName["telescopes.pdf"]).toMatchObject({ status: "ready" });
    expect(byName["planets.csv"]).toMatchObject({ status: "ready", row_count: 3 });
    expect(byName["notes.txt"], "a refused upload stores nothing").toBeUndefined();

    await page.getByRole("tab", { name: "Documents", exact: true }).click();
    await visible(page.getByRole("link", { name: "planets.csv" }));
    await maybeScreenshot(page, "console-dataset");
  }, 120_000);

  it("searches rows (E2, with alpha), documents (E3) and both (E1), with latency", async () => {
    await page.getByRole("link", { name: "Search this dataset" }).click();
    await visible(page.getByRole("heading", { name: "Search playground" }));
    await page.getByLabel("Query").fill("Jupiter gas giant");

    // E2: the slider moves with the keyboard, and the request carries its alpha.
    const thumb = page.getByRole("slider");
    await thumb.focus();
    await thumb.press("ArrowLeft");
    await thumb.press("ArrowLeft");
    expect(await thumb.getAttribute("aria-valuenow")).toBe("0.4");
    const e2 = page.waitForRequest((r) => r.url().endsWith(`/api/datasets/${datasetId}/search`));
    await page.getByRole("button", { name: "Search", exact: true }).click();
    expect(JSON.parse((await e2).postData() ?? "{}")).toMatchObject({
      query: "Jupiter gas giant",
      alpha: 0.4,
    });
    const first = page.getByTestId("search-result").first();
    await visible(first);
    expect(await first.textContent()).toMatch(/confidence \d\.\d{3}/);
    expect(await first.textContent()).toContain("Jupiter");
    expect(await page.getByTestId("latency").textContent()).toMatch(/^\d+ ms$/);
    await maybeScreenshot(page, "console-search");

    // "Copy as curl" gives the same request, the key left as a variable.
    await page.getByRole("button", { name: "Show curl" }).click();
    const curl = (await page.getByTestId("curl").textContent()) ?? "";
    expect(curl).toContain(`${consoleOrigin()}/api/datasets/${datasetId}/search`);
    expect(curl).toContain("$QUARRY_API_KEY");
    expect(curl).not.toContain(ui.tenant.key);

    await page.getByLabel("Documents (E3)").check();
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await visible(page.getByTestId("document-result").getByText("planets.csv"));

    await page.getByLabel("Rows in matching documents (E1)").check();
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await visible(page.getByTestId("document-result"));
    await visible(page.getByTestId("search-result"));
  }, 60_000);

  it("shows a bad filter's 400 message beside the filter, and a good filter's results", async () => {
    await page.getByLabel("Rows (E2)").check();
    const filter = page.getByLabel("Metadata filter (JSON, optional)");
    await filter.fill('{"year": {"$gte": "2020"}}');
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const expected = await call(`/api/datasets/${datasetId}/search`, {
      method: "POST",
      token: ui.tenant.key,
      body: { query: "Jupiter gas giant", filter: { year: { $gte: "2020" } } },
    });
    expect(expected.status).toBe(400);
    const message = (expected.body as { error: { message: string } }).error.message;
    expect(message).toMatch(/filter/);
    // In place: inside the filter's description, not somewhere else on the page.
    const described = page.locator(`[id="${await filter.getAttribute("aria-describedby")}"]`);
    await visible(described.getByText(message));
    expect(await filter.getAttribute("aria-invalid")).toBe("true");

    await filter.fill('{"year": {"$gte": 2000}}');
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await visible(page.getByTestId("search-result"));
    const years = await page.getByTestId("search-result").allTextContents();
    expect(years.length).toBeGreaterThan(0);
    expect(years.join(" ")).not.toContain("Mercury"); // year 1990 in the CSV
  }, 60_000);

  it("edits a row (E8) and deletes one (E14) from the document's page", async () => {
    await page.goto(`${consoleOrigin()}/console/datasets/${datasetId}`);
    await page.getByRole("link", { name: "planets.csv" }).click();
    await visible(page.getByRole("heading", { name: "planets.csv" }));
    const rows = await listRows();
    expect(rows).toHaveLength(3);
    const [edited, deleted] = rows as [StoredRow, StoredRow];

    await page.getByRole("button", { name: `Edit row ${edited.id}` }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("text").fill("Jupiter is the largest planet, edited in the console");
    await dialog.getByRole("button", { name: "Save row" }).click();
    await visible(page.locator(`[data-row-id="${edited.id}"]`).getByText(/edited in the console/));
    await maybeScreenshot(page, "console-document");

    await page.getByRole("button", { name: `Delete row ${deleted.id}` }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
    await page.locator(`[data-row-id="${deleted.id}"]`).waitFor({ state: "detached" });

    const after = await listRows();
    expect(after.map((r) => r.id)).toEqual(rows.filter((r) => r !== deleted).map((r) => r.id));
    expect(after.find((r) => r.id === edited.id)?.data.text).toBe(
      "Jupiter is the largest planet, edited in the console",
    );
  }, 60_000);

  it("pages a long document's rows after the last row shown (E6 after), forward and back", async () => {
    const written = await upsertRows(ui.tenant.key, datasetId, {
      document_id: "logbook",
      rows: Array.from({ length: 60 }, (_, i) => ({
        data: { text: `Logbook entry ${i}: the night sky over the observatory` },
      })),
    });
    expect(written.status, written.text).toBe(200);
    const ids = (written.body as { rows: StoredRow[] }).rows.map((r) => r.id);
    const asked: URL[] = [];
    const noteRowsRequest = (request: { url(): string }) => {
      const url = new URL(request.url());
      if (url.pathname === `/api/datasets/${datasetId}/rows`) asked.push(url);
    };
    page.on("request", noteRowsRequest);
    const pages = page.getByRole("navigation", { name: "Row pages" });
    const showing = async (first: number, label: string) => {
      await visible(page.locator(`[data-row-id="${ids[first]}"]`));
      await visible(pages.getByText(label, { exact: true }));
      const cells = page.locator("[data-row-id]");
      const shown: number[] = [];
      for (let i = 0; i < (await cells.count()); i++) {
        shown.push(Number(await cells.nth(i).getAttribute("data-row-id")));
      }
      return shown;
    };

    await page.goto(`${consoleOrigin()}/console/datasets/${datasetId}/documents/logbook`);
    expect(await showing(0, "1–25")).toEqual(ids.slice(0, 25));

    await pages.getByRole("button", { name: "Next →" }).click();
    expect(await showing(25, "26–50")).toEqual(ids.slice(25, 50));
    const second = asked.at(-1)!;
    expect(second.searchParams.get("after")).toBe(String(ids[24]));
    expect(second.searchParams.has("offset")).toBe(false);

    // A row deleted before the page does not shift it, as it would shift offset 50.
    const deleted = await call(`/api/datasets/${datasetId}/rows/${ids[3]}`, {
      method: "DELETE",
      token: ui.tenant.key,
    });
    expect(deleted.status).toBe(204);
    await pages.getByRole("button", { name: "Next →" }).click();
    expect(await showing(50, "51–60")).toEqual(ids.slice(50));
    expect(asked.at(-1)!.searchParams.get("after")).toBe(String(ids[49]));
    expect(await pages.getByRole("button", { name: "Next →" }).isDisabled()).toBe(true);

    await pages.getByRole("button", { name: "← Previous" }).click();
    expect(await showing(25, "26–50")).toEqual(ids.slice(25, 50));
    await pages.getByRole("button", { name: "← Previous" }).click();
    await visible(pages.getByText("1–25", { exact: true }));
    expect(await pages.getByRole("button", { name: "← Previous" }).isDisabled()).toBe(true);
    page.off("request", noteRowsRequest);
  }, 60_000);

  it("fits a phone's width, and signing out forgets the key", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${consoleOrigin()}/console/datasets`);
    await visible(page.getByRole("link", { name: DATASET }));
    const overflow = await page.evaluate(HORIZONTAL_OVERFLOW);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole("button", { name: "Sign out" }).click();
    await visible(page.getByRole("button", { name: "Sign in" }));
    expect(await page.evaluate(STORED_KEYS)).toBe(0);
  }, 60_000);

  it("loaded nothing from another origin, with no page error or CSP refusal", async () => {
    expect(ui.tab.blocked).toEqual([]);
    expect(ui.tab.errors).toEqual([]);
    expect(await ui.tab.cspViolations()).toEqual([]);
  });
});

interface StoredRow {
  id: number;
  data: Record<string, string>;
  metadata: Record<string, unknown>;
}

async function listRows(): Promise<StoredRow[]> {
  const documents = await call(`/api/datasets/${datasetId}/documents`, { token: ui.tenant.key });
  const csv = (documents.body as { id: string; filename: string }[]).find(
    (d) => d.filename === "planets.csv",
  )!;
  const filter = encodeURIComponent(JSON.stringify({ documentId: csv.id }));
  const reply = await call(`/api/datasets/${datasetId}/rows?filter=${filter}`, {
    token: ui.tenant.key,
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body as StoredRow[];
}

function uploadForm(name: string, bytes: Buffer): FormData {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type: "text/plain" }), name);
  return form;
}

const PLANETS_CSV = [
  "text,year",
  "Jupiter is a gas giant and the largest planet,2021",
  "Mercury is the smallest planet and closest to the Sun,1990",
  "Saturn is a gas giant with bright rings,2019",
].join("\n");

function telescopesPdf(): Uint8Array {
  return buildPdf({
    pages: [
      { runs: [{ text: "Telescopes find exoplanets by the transit method." }] },
      { runs: [{ text: "Radial velocity reveals the wobble of a star." }] },
    ],
  });
}
