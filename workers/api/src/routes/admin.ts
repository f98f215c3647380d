import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { createApiKey, createProject, listApiKeys, listProjects, revokeApiKey } from "@quarry/core";
import type { HonoEnv } from "../http/hono-env.ts";
import { adminSecurity, errorResponses, jsonBody, jsonResponse } from "../http/openapi.ts";
import { AdminListQuery, ApiKeySummarySchema } from "../http/schemas/admin.ts";
import {
  ApiKeySchema,
  CreateApiKeyBody,
  CreateProjectBody,
  KeyParams,
  ProjectParams,
  ProjectSchema,
} from "../http/schemas/management.ts";

const createProjectRoute = createRoute({
  method: "post",
  path: "/admin/projects",
  operationId: "createProject",
  tags: ["Admin"],
  summary: "Create a project",
  security: adminSecurity,
  request: { body: jsonBody(CreateProjectBody) },
  responses: { 201: jsonResponse(ProjectSchema, "The new project"), ...errorResponses },
});

const createKeyRoute = createRoute({
  method: "post",
  path: "/admin/projects/{id}/keys",
  operationId: "createApiKey",
  tags: ["Admin"],
  summary: "Issue an API key for a project (the key is shown once)",
  security: adminSecurity,
  request: { params: ProjectParams, body: jsonBody(CreateApiKeyBody) },
  responses: { 201: jsonResponse(ApiKeySchema, "The new key"), ...errorResponses },
});

const listProjectsRoute = createRoute({
  method: "get",
  path: "/admin/projects",
  operationId: "listProjects",
  tags: ["Admin"],
  summary: "List every project, oldest first",
  security: adminSecurity,
  request: { query: AdminListQuery },
  responses: { 200: jsonResponse(z.array(ProjectSchema), "Projects"), ...errorResponses },
});

const listKeysRoute = createRoute({
  method: "get",
  path: "/admin/projects/{id}/keys",
  operationId: "listApiKeys",
  tags: ["Admin"],
  summary: "List a project's API keys, revoked ones included (never the key itself)",
  security: adminSecurity,
  request: { params: ProjectParams, query: AdminListQuery },
  responses: {
    200: jsonResponse(z.array(ApiKeySummarySchema), "The project's keys, oldest first"),
    ...errorResponses,
  },
});

const revokeKeyRoute = createRoute({
  method: "delete",
  path: "/admin/keys/{key_id}",
  operationId: "revokeApiKey",
  tags: ["Admin"],
  summary: "Revoke an API key; it stops working at once",
  security: adminSecurity,
  request: { params: KeyParams },
  responses: { 204: { description: "Revoked" }, ...errorResponses },
});

export function registerAdmin(app: OpenAPIHono<HonoEnv>) {
  app.openapi(createProjectRoute, async (c) => {
    const project = await createProject(c.get("services").db(), c.req.valid("json"));
    return c.json(project, 201);
  });
  app.openapi(createKeyRoute, async (c) => {
    const body = c.req.valid("json");
    const key = await createApiKey(c.get("services").db(), {
      projectId: c.req.valid("param").id,
      ...body,
    });
    return c.json(key, 201);
  });
  app.openapi(listProjectsRoute, async (c) => {
    return c.json(await listProjects(c.get("services").db(), c.req.valid("query")), 200);
  });
  app.openapi(listKeysRoute, async (c) => {
    const keys = await listApiKeys(
      c.get("services").db(),
      c.req.valid("param").id,
      c.req.valid("query"),
    );
    return c.json(keys, 200);
  });
  app.openapi(revokeKeyRoute, async (c) => {
    const services = c.get("services");
    const keyId = c.req.valid("param").key_id;
    await revokeApiKey(services.db(), keyId);
    services.authCache.forgetKey(keyId);
    return c.body(null, 204);
  });
}
