import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
} from "@quarry/core";
import type { HonoEnv } from "../http/hono-env.ts";
import {
  errorResponse,
  errorResponses,
  jsonBody,
  jsonResponse,
  PageQuery,
  projectSecurity,
  toPage,
} from "../http/openapi.ts";
import {
  CreateEndpointBody,
  EndpointParams,
  EndpointSchema,
  UpdateEndpointBody,
} from "../http/schemas/management.ts";

const tags = ["Endpoints"];

const createEndpointRoute = createRoute({
  method: "post",
  path: "/api/endpoints",
  operationId: "createEndpoint",
  tags,
  summary: "Create an endpoint (deployment 1)",
  security: projectSecurity,
  request: { body: jsonBody(CreateEndpointBody) },
  responses: { 201: jsonResponse(EndpointSchema, "The new endpoint"), ...errorResponses },
});

const listEndpointsRoute = createRoute({
  method: "get",
  path: "/api/endpoints",
  operationId: "listEndpoints",
  tags,
  summary: "List the project's endpoints (oldest first)",
  security: projectSecurity,
  request: { query: PageQuery },
  responses: { 200: jsonResponse(z.array(EndpointSchema), "Endpoints"), ...errorResponses },
});

const getEndpointRoute = createRoute({
  method: "get",
  path: "/api/endpoints/{id}",
  operationId: "getEndpoint",
  tags,
  summary: "Get an endpoint",
  security: projectSecurity,
  request: { params: EndpointParams },
  responses: { 200: jsonResponse(EndpointSchema, "The endpoint"), ...errorResponses },
});

const updateEndpointRoute = createRoute({
  method: "patch",
  path: "/api/endpoints/{id}",
  operationId: "updateEndpoint",
  tags,
  summary: "Update an endpoint: every change is a new deployment",
  security: projectSecurity,
  request: { params: EndpointParams, body: jsonBody(UpdateEndpointBody) },
  responses: {
    200: jsonResponse(EndpointSchema, "The endpoint at its new deployment"),
    ...errorResponses,
    409: errorResponse("Another update won the race; retry"),
  },
});

const deleteEndpointRoute = createRoute({
  method: "delete",
  path: "/api/endpoints/{id}",
  operationId: "deleteEndpoint",
  tags,
  summary: "Delete an endpoint with its deployments and logs",
  security: projectSecurity,
  request: { params: EndpointParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses },
});

export function registerEndpoints(app: OpenAPIHono<HonoEnv>) {
  app.openapi(createEndpointRoute, async (c) => {
    return c.json(await createEndpoint(c.var.project, c.req.valid("json")), 201);
  });
  app.openapi(listEndpointsRoute, async (c) => {
    return c.json(await listEndpoints(c.var.project, toPage(c.req.valid("query"))), 200);
  });
  app.openapi(getEndpointRoute, async (c) => {
    return c.json(await getEndpoint(c.var.project, c.req.valid("param").id), 200);
  });
  app.openapi(updateEndpointRoute, async (c) => {
    const id = c.req.valid("param").id;
    const updated = await updateEndpoint(c.var.project, id, c.req.valid("json"));
    c.var.services.authCache.forgetEndpoint(id);
    return c.json(updated, 200);
  });
  app.openapi(deleteEndpointRoute, async (c) => {
    const id = c.req.valid("param").id;
    await deleteEndpoint(c.var.project, id);
    c.var.services.authCache.forgetEndpoint(id);
    return c.body(null, 204);
  });
}
