import type { OpenAPIHono } from "@hono/zod-openapi";
import type { HonoEnv } from "../http/hono-env.ts";

/** Where the page loads Scalar from: a static asset of this worker (wrangler.toml `[assets]`). */
export const SCALAR_BUNDLE_PATH = "/docs/scalar.js";

/**
 * Scalar's settings for an offline, self-contained page: no web fonts (they come from
 * fonts.scalar.com), no AI agent or developer toolbar (both talk to scalar.com). Requests made
 * with its "Test request" client go to the document's server, this origin.
 */
const SCALAR_CONFIGURATION = {
  url: "/openapi.json",
  withDefaultFonts: false,
  agent: { disabled: true },
  showDeveloperTools: "never",
  telemetry: false,
};

/**
 * The page's Content-Security-Policy: scripts from this origin only (no CDN, no inline script,
 * no eval — Scalar probes `new Function` once and falls back when refused); inline styles,
 * because the bundle injects its stylesheet as <style> elements at runtime; the OpenAPI
 * document and "Test request" calls go to this origin. No images or fonts: it needs none.
 */
export const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The page holds no inline script (the CSP allows scripts from this origin only): Scalar's
 * bundle reads its settings from the `#api-reference` element, a non-executable JSON script.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Quarry API reference</title>
  </head>
  <body>
    <script id="api-reference" type="application/json" data-configuration="${escapeAttribute(
      JSON.stringify(SCALAR_CONFIGURATION),
    )}"></script>
    <script src="${SCALAR_BUNDLE_PATH}"></script>
  </body>
</html>
`;

/**
 * `/openapi.json` is generated from the route schemas; `/docs` renders it with the Scalar
 * bundle of the pinned `@scalar/api-reference` dependency, served from this worker's static
 * assets (workers/api/scripts/docs-assets.mjs puts it there), so the page works offline.
 */
export function registerDocs(app: OpenAPIHono<HonoEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "A project API key: `Authorization: Bearer qry_…`",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "The deployment's ADMIN_TOKEN",
  });
  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Quarry API",
      version: "1.0.0",
      description:
        'Datasets of text: ingest documents, search them, and serve grounded completions with logs and feedback. Errors are `{"error":{"code","message","request_id"}}`.',
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));
  app.get("/docs", (c) => c.html(PAGE, 200, { "Content-Security-Policy": DOCS_PAGE_CSP }));
  app.get(SCALAR_BUNDLE_PATH, async (c) => {
    // The assets runtime answers by URL path (conditional requests included); a fresh
    // Response makes its headers writable for the request id and security headers.
    const asset = await c.env.ASSETS.fetch(c.req.raw);
    return new Response(asset.body, asset);
  });
}

function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}
