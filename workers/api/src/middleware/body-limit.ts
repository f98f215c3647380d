import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { errorResponse } from "../http/errors.ts";
import type { HonoEnv } from "../http/hono-env.ts";

/** JSON bodies: 1,000 rows of long text fit; more is a 413 before anything is parsed. */
export const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

const limitJson = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: (c) =>
    errorResponse(
      c,
      "payload_too_large",
      `body: larger than ${MAX_JSON_BODY_BYTES / 1024 / 1024} MB; send fewer rows per request`,
    ),
});

/** Every route but the file upload (which streams to R2 with its own 100 MB limit). */
export const jsonBodyLimit = createMiddleware<HonoEnv>(async (c, next) => {
  if (c.req.path.endsWith("/upload")) return next();
  return limitJson(c, next);
});
