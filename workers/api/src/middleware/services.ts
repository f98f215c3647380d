import { createMiddleware } from "hono/factory";
import type { Config } from "../env.ts";
import type { HonoEnv } from "../http/hono-env.ts";
import { createServices } from "../http/services.ts";

/** Builds the request's services; closes them after the response (streams included). */
export function services(config: (env: HonoEnv["Bindings"]) => Config) {
  return createMiddleware<HonoEnv>(async (c, next) => {
    const built = createServices(config(c.env), c.env);
    c.set("services", built);
    try {
      await next();
    } finally {
      c.executionCtx.waitUntil(built.close());
    }
  });
}
