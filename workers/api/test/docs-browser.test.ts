import { readFile } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cspViolations, launchChromium, recordCspViolations } from "./support/chromium.ts";
import { call } from "./support/client.ts";
import { expectOwnOriginCsp } from "./support/csp.ts";

/**
 * `/docs` in a real browser with the network cut off: everything the page needs (the Scalar
 * bundle, the OpenAPI document) must come from the stack's own origin. The browser is
 * Debian's chromium (`pnpm browser:provision`), driven by playwright-core.
 */
const origin = new URL(inject("baseUrl")).origin;

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe("the API reference page", () => {
  it("renders the OpenAPI document offline, loading nothing from another origin", async () => {
    const openapi = (await call("/openapi.json")).body as {
      info: { title: string };
      paths: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
    };
    // Scalar opens the first tag: its first operation's title must be on the page.
    const firstOperation = Object.values(Object.values(openapi.paths)[0]!)[0]!;
    expect(firstOperation.summary).toBeTruthy();

    const context = await browser.newContext();
    const page = await context.newPage();
    const sameOrigin: string[] = [];
    const blocked: string[] = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) {
        sameOrigin.push(new URL(url).pathname);
        return route.continue();
      }
      blocked.push(url);
      return route.abort("internetdisconnected");
    });
    // Everything the page's CSP refused (a font, a style, a fetch the route above never saw).
    await recordCspViolations(page);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));

    const response = await page.goto(`${origin}/docs`);
    expect(response?.status()).toBe(200);
    const rendered = await page
      .getByRole("heading", { name: openapi.info.title })
      .first()
      .waitFor({ state: "visible", timeout: 60_000 })
      .then(() =>
        page
          .getByText(firstOperation.summary!, { exact: true })
          .first()
          .waitFor({ state: "visible", timeout: 10_000 }),
      )
      .then(
        () => true,
        () => false,
      );

    // First what the page tried to fetch elsewhere: that is why a blank page is blank.
    expect(blocked, "requests to other origins").toEqual([]);
    expect(rendered, "the reference shows the document's title and first operation").toBe(true);
    expect(sameOrigin).toEqual(
      expect.arrayContaining(["/docs", "/docs/scalar.js", "/openapi.json"]),
    );
    expect(errors).toEqual([]);
    // Scalar probes `new Function("")` once (a validator's fast path) and falls back when the
    // CSP refuses eval: that refusal is the only one expected.
    const violations = await cspViolations(page);
    expect(violations.filter((v) => v !== "script-src eval")).toEqual([]);
    await context.close();
  }, 120_000);

  it("allows scripts from its own origin only", async () => {
    const csp = (await call("/docs")).headers.get("content-security-policy") ?? "";
    expectOwnOriginCsp(csp);
  });

  it("serves the pinned Scalar bundle itself, with the usual headers", async () => {
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const pinned = pkg.dependencies["@scalar/api-reference"]!;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);

    const reply = await call("/docs/scalar.js");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/javascript/);
    expect(reply.headers.get("x-request-id")).toBeTruthy();
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    expect(reply.text.slice(0, 1000)).toContain(`@scalar/api-reference ${pinned}`);
  });
});
