import { randomString } from "@quarry/core";
import { createMiddleware } from "hono/factory";
import type { HonoEnv } from "../http/hono-env.ts";

const CLIENT_ID = /^[A-Za-z0-9._:-]{8,64}$/;

/** Every response carries X-Request-Id; a well-formed id from the client is kept for tracing. */
export const requestId = createMiddleware<HonoEnv>(async (c, next) => {
  const given = c.req.header("x-request-id");
  const id = given && CLIENT_ID.test(given) ? given : `req_${randomString(20)}`;
  c.set("requestId", id);
  await next();
  c.res.headers.set("X-Request-Id", id);
});
