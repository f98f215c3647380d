import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  BadRequestError,
  commentOnLog,
  DEFAULT_LOG_PAGE_SIZE,
  listLogs,
  MAX_LOG_PAGE_SIZE,
  rateLogs,
} from "@quarry/core";
import { integerParam, readGetParams } from "../http/get-params.ts";
import type { HonoEnv } from "../http/hono-env.ts";
import { errorResponses, jsonBody, jsonResponse, projectSecurity } from "../http/openapi.ts";
import {
  CommentBody,
  ListLogsQuery,
  LogListingSchema,
  LogParams,
  LogRatingSchema,
  LogWithCommentsSchema,
  RateLogsBody,
} from "../http/schemas/logs.ts";
import { EndpointParams } from "../http/schemas/management.ts";

const tags = ["Logs"];

const listRoute = createRoute({
  method: "get",
  path: "/endpoints/{id}/logs",
  operationId: "listLogs",
  tags,
  summary: "E7 List an endpoint's completion logs, newest first",
  description:
    "Parameters come from a JSON body `{page, page_size}` (a body on GET, as the API contract shows it) or from the query string; the body wins when both are given.",
  security: projectSecurity,
  request: { params: EndpointParams, query: ListLogsQuery },
  responses: { 200: jsonResponse(z.array(LogListingSchema), "Logs"), ...errorResponses },
});

const rateRoute = createRoute({
  method: "patch",
  path: "/endpoints/{id}/logs",
  operationId: "rateLogs",
  tags,
  summary:
    "E15 Rate logs: one (usage_id, positive_rating) or a batch (logs: [...], all or nothing)",
  security: projectSecurity,
  request: { params: EndpointParams, body: jsonBody(RateLogsBody) },
  responses: {
    200: jsonResponse(
      z.union([LogRatingSchema, z.array(LogRatingSchema)]),
      "The log in rating form; for a batch, every log in the order given",
    ),
    ...errorResponses,
  },
});

const commentRoute = createRoute({
  method: "post",
  path: "/endpoints/{id}/logs/{log_id}/comments",
  operationId: "createLogComment",
  tags,
  summary: "E10 Comment on a log",
  security: projectSecurity,
  request: { params: LogParams, body: jsonBody(CommentBody) },
  responses: {
    200: jsonResponse(LogWithCommentsSchema, "The log with all its comments, oldest first"),
    ...errorResponses,
  },
});

export function registerLogs(app: OpenAPIHono<HonoEnv>) {
  app.openapi(listRoute, async (c) => {
    const params = await readGetParams(c);
    const unknown = Object.keys(params).find((k) => !["page", "page_size"].includes(k));
    if (unknown) throw new BadRequestError("unknown parameter; use page, page_size", unknown);
    const page = {
      page: integerParam(params.page, "page", { min: 1, max: 10_000_000, fallback: 1 }),
      pageSize: integerParam(params.page_size, "page_size", {
        min: 1,
        max: MAX_LOG_PAGE_SIZE,
        fallback: DEFAULT_LOG_PAGE_SIZE,
      }),
    };
    return c.json(await listLogs(c.var.project, c.req.valid("param").id, page), 200);
  });
  app.openapi(rateRoute, async (c) => {
    const rated = await rateLogs(c.var.project, c.req.valid("param").id, c.req.valid("json"));
    return c.json(rated, 200);
  });
  app.openapi(commentRoute, async (c) => {
    const { id, log_id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(await commentOnLog(c.var.project, id, log_id, body, c.var.caller), 200);
  });
}
