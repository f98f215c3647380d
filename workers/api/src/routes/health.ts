import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { HonoEnv } from "../http/hono-env.ts";
import { jsonResponse } from "../http/openapi.ts";

const route = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["Service"],
  summary: "Liveness and database reachability",
  responses: {
    200: jsonResponse(z.object({ status: z.literal("ok") }), "The database answers"),
    503: jsonResponse(
      z.object({ status: z.literal("unavailable") }),
      "The database does not answer",
    ),
  },
});

export function registerHealth(app: OpenAPIHono<HonoEnv>) {
  app.openapi(route, async (c) => {
    try {
      await c.get("services").db().execute(sql`select 1`);
      return c.json({ status: "ok" as const }, 200);
    } catch {
      return c.json({ status: "unavailable" as const }, 503);
    }
  });
}
