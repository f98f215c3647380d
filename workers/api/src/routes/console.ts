import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errorResponse } from "../http/errors.ts";
import type { HonoEnv } from "../http/hono-env.ts";

/** Where the console lives: its page and its hashed files (packages/console, Vite `base`). */
export const CONSOLE_PATH = "/console";
const CONSOLE_FILES = `${CONSOLE_PATH}/assets/`;

/**
 * The console's Content-Security-Policy: everything from this origin, nothing else (no CDN,
 * no inline script, no eval; fonts are the system's). Inline styles are allowed because the
 * dialog library (Radix) positions popovers with style attributes and injects a scroll-lock
 * <style>; styles cannot run code. The API the console calls is this origin.
 */
export const CONSOLE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The console (issue 16): a single-page app built by workers/api/scripts/console-assets.mjs
 * into this worker's static assets. `/console/assets/*` are its content-hashed files (kept
 * by browsers for a year); every other path under `/console` is a route of the app, answered
 * with its page (index.html) so a deep link or a reload works.
 */
export function registerConsole(app: OpenAPIHono<HonoEnv>) {
  app.get(`${CONSOLE_FILES}*`, async (c) => {
    const asset = await c.env.ASSETS.fetch(c.req.raw);
    if (asset.status === 404) return errorResponse(c, "not_found", `No console file ${c.req.path}`);
    const reply = new Response(asset.body, asset);
    if (reply.ok) reply.headers.set("Cache-Control", "public, max-age=31536000, immutable");
    reply.headers.set("Content-Security-Policy", CONSOLE_PAGE_CSP);
    return reply;
  });
  app.get(CONSOLE_PATH, (c) => consolePage(c));
  app.get(`${CONSOLE_PATH}/*`, (c) => consolePage(c));
}

async function consolePage(c: Context<HonoEnv>) {
  // The assets runtime serves a directory's index.html at its path with a trailing slash.
  const page = await c.env.ASSETS.fetch(new URL(`${CONSOLE_PATH}/`, c.req.url));
  if (!page.ok) {
    return c.text(
      "The console is not built: run `node workers/api/scripts/console-assets.mjs`.",
      503,
    );
  }
  const reply = new Response(page.body, { status: 200, headers: page.headers });
  reply.headers.set("Content-Type", "text/html; charset=utf-8");
  // The page names the current hashed files: always revalidated, so a deploy shows at once.
  reply.headers.set("Cache-Control", "no-cache");
  reply.headers.set("Content-Security-Policy", CONSOLE_PAGE_CSP);
  return reply;
}
