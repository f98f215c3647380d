import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../http/hono-env.ts";

/**
 * Headers every response carries. API replies hold tenants' data, so no cache may keep them
 * (a route that chose its own Cache-Control, like the SSE stream's no-cache, keeps it); no
 * browser may sniff a JSON reply into HTML or frame it; URLs never leak through Referer.
 * Every reply gets the lock-everything Content-Security-Policy unless its route chose a
 * policy of its own: the API reference page (`/docs`, routes/docs.ts) allows its scripts from
 * this origin, a stored file is sandboxed.
 */
const ALWAYS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
};
const LOCKED_DOWN_CSP = "default-src 'none'; frame-ancestors 'none'";

export const securityHeaders = createMiddleware<HonoEnv>(async (c, next) => {
  await next();
  const headers = c.res.headers;
  for (const [name, value] of Object.entries(ALWAYS)) headers.set(name, value);
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  if (!headers.has("Content-Security-Policy")) {
    headers.set("Content-Security-Policy", LOCKED_DOWN_CSP);
  }
});
