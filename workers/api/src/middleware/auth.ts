import { authenticateApiKey, isAdminToken, UnauthorizedError } from "@quarry/core";
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../http/hono-env.ts";

function bearer(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/** Project routes: a valid, unrevoked project API key. Runs before any body validation. */
export const requireApiKey = createMiddleware<HonoEnv>(async (c, next) => {
  const services = c.get("services");
  const caller = await authenticateApiKey(services.db(), bearer(c.req.header("authorization")));
  c.set("caller", caller);
  await next();
});

/** Admin routes: the ADMIN_TOKEN, compared in constant time. */
export const requireAdmin = createMiddleware<HonoEnv>(async (c, next) => {
  const { config } = c.get("services");
  if (!(await isAdminToken(config.ADMIN_TOKEN, bearer(c.req.header("authorization"))))) {
    throw new UnauthorizedError("Missing or invalid admin token");
  }
  await next();
});
