import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  commentOnLog,
  exportLogs,
  listLogs,
  parseExportLogsParams,
  parseListLogsParams,
  rateLogs,
} from "@quarry/core";
import { readGetParams } from "../http/get-params.ts";
import type { HonoEnv } from "../http/hono-env.ts";
import { errorResponses, jsonBody, jsonResponse, projectSecurity } from "../http/openapi.ts";
import {
  CommentBody,
  ExportLogsQuery,
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
  summary: "E7 List an endpoint's completion logs, newest first, filtered",
  description:
    "Parameters come from a JSON body `{page, page_size, after, rating, has_comments, since, until, user, status}` (a body on GET, as the API contract shows it) or from the query string; the body wins when both are given. A filter left out does not filter; an unknown parameter or value is a 400 naming it. For the next page, pass the last log's id as `after`: any page then costs what the first does, and logs written meanwhile do not shift it.",
  security: projectSecurity,
  request: { params: EndpointParams, query: ListLogsQuery },
  responses: { 200: jsonResponse(z.array(LogListingSchema), "Logs"), ...errorResponses },
});

const exportRoute = createRoute({
  method: "get",
  path: "/endpoints/{id}/logs/export",
  operationId: "exportLogs",
  tags,
  summary: "Export an endpoint's logs (E7's filters) with their ratings and comments",
  description:
    "Every matching log, newest first, one record per log: `jsonl` (JSON Lines) or `csv` (RFC 4180, a header row, CRLF line ends; lists and objects as JSON text). Streamed as it is read, so an export of any size starts at once; sent as an attachment.",
  security: projectSecurity,
  request: { params: EndpointParams, query: ExportLogsQuery },
  responses: {
    200: {
      description: "The logs, one record per line",
      content: {
        "application/x-ndjson": { schema: z.string() },
        "text/csv": { schema: z.string() },
      },
    },
    ...errorResponses,
  },
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
    // The query was validated by the route; the body (when sent) is validated here, merged.
    const input = parseListLogsParams(await readGetParams(c));
    return c.json(await listLogs(c.var.project, c.req.valid("param").id, input), 200);
  });
  app.openapi(exportRoute, async (c) => {
    const input = parseExportLogsParams(c.req.query());
    const exported = await exportLogs(c.var.project, c.req.valid("param").id, input);
    // The body is read from the database while it is sent: keep the worker and its
    // connection until it is done (or the client went away).
    c.executionCtx.waitUntil(exported.finished);
    c.var.services.defer(exported.finished);
    return c.body(exported.body, 200, {
      "Content-Type": exported.contentType,
      "Content-Disposition": exported.contentDisposition,
    });
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
