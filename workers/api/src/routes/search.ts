import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { documentFilteredSearch, searchDocuments, searchRows } from "@quarry/core";
import type { HonoEnv } from "../http/hono-env.ts";
import { errorResponses, jsonBody, jsonResponse, projectSecurity } from "../http/openapi.ts";
import { DatasetParams } from "../http/schemas/management.ts";
import {
  DocumentFilteredSearchBody,
  DocumentFilteredSearchResponse,
  DocumentSearchBody,
  DocumentSearchResponse,
  SearchBody,
  SearchResponse,
} from "../http/schemas/search.ts";

const tags = ["Search"];
const upstream = {
  502: { description: "The embedding provider failed", content: errorResponses[400].content },
};

const searchRoute = createRoute({
  method: "post",
  path: "/api/datasets/{id}/search",
  operationId: "searchRows",
  tags,
  summary: "E2 Search rows: semantic, hybrid (alpha) or keyword, with a metadata filter",
  security: projectSecurity,
  request: { params: DatasetParams, body: jsonBody(SearchBody) },
  responses: {
    200: jsonResponse(SearchResponse, "Rows by confidence, best first"),
    ...errorResponses,
    ...upstream,
  },
});

const searchDocumentsRoute = createRoute({
  method: "post",
  path: "/api/datasets/{id}/search-documents",
  operationId: "searchDocuments",
  tags,
  summary: "E3 Search documents by keywords (BM25 over each document's text)",
  security: projectSecurity,
  request: { params: DatasetParams, body: jsonBody(DocumentSearchBody) },
  responses: {
    200: jsonResponse(DocumentSearchResponse, "Documents by similarity, best first"),
    ...errorResponses,
  },
});

const documentFilteredRoute = createRoute({
  method: "post",
  path: "/api/datasets/{id}/document-filtered-search",
  operationId: "documentFilteredSearch",
  tags,
  summary: "E1 Find documents by keywords (E3), then search their rows (E2)",
  security: projectSecurity,
  request: { params: DatasetParams, body: jsonBody(DocumentFilteredSearchBody) },
  responses: {
    200: jsonResponse(DocumentFilteredSearchResponse, "The documents found and their best rows"),
    ...errorResponses,
    ...upstream,
  },
});

export function registerSearch(app: OpenAPIHono<HonoEnv>) {
  app.openapi(searchRoute, async (c) => {
    const body = c.req.valid("json");
    return c.json(await searchRows(c.var.project, c.req.valid("param").id, body), 200);
  });
  app.openapi(searchDocumentsRoute, async (c) => {
    const body = c.req.valid("json");
    return c.json(await searchDocuments(c.var.project, c.req.valid("param").id, body), 200);
  });
  app.openapi(documentFilteredRoute, async (c) => {
    const body = c.req.valid("json");
    return c.json(await documentFilteredSearch(c.var.project, c.req.valid("param").id, body), 200);
  });
}
