import { AuthCache, PendingListFlushes, QuerySampleGate, VectorIndexRequests } from "@quarry/core";
import { createMiddleware } from "hono/factory";
import type { Config } from "../env.ts";
import type { HonoEnv } from "../http/hono-env.ts";
import { ServerTiming } from "../http/server-timing.ts";
import { createServices, type IsolateState } from "../http/services.ts";

/**
 * Builds the request's services; closes them after the response (streams included). The
 * reply says how long the request took and how much of it was the database (server-timing.ts).
 */
export function services(config: (env: HonoEnv["Bindings"]) => Config) {
  // Lives as long as the isolate: the state requests share.
  let shared: IsolateState | undefined;
  return createMiddleware<HonoEnv>(async (c, next) => {
    const settings = config(c.env);
    shared ??= {
      authCache: new AuthCache({ ttlMs: settings.AUTH_CACHE_SECONDS * 1000 }),
      indexRequests: new VectorIndexRequests(),
      querySampleGate: new QuerySampleGate(),
      pendingListFlushes: new PendingListFlushes(settings.PENDING_LIST_FLUSH_CHARACTERS),
    };
    const timing = new ServerTiming();
    const built = createServices(settings, c.env, shared, timing.database);
    c.set("services", built);
    try {
      await next();
      c.res.headers.set("Server-Timing", timing.header());
    } finally {
      c.executionCtx.waitUntil(built.close());
    }
  });
}
