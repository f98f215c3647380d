import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { createDataset, deleteDataset, getDataset, listDatasets } from "@quarry/core";
import { vectorGraphOverrides } from "../env.ts";
import type { HonoEnv } from "../http/hono-env.ts";
import {
  errorResponses,
  jsonBody,
  jsonResponse,
  PageQuery,
  projectSecurity,
  toPage,
} from "../http/openapi.ts";
import {
  CreateDatasetBody,
  DatasetDetailSchema,
  DatasetParams,
  DatasetSchema,
} from "../http/schemas/management.ts";

const tags = ["Datasets"];

const createDatasetRoute = createRoute({
  method: "post",
  path: "/api/datasets",
  operationId: "createDataset",
  tags,
  summary: "Create a dataset",
  security: projectSecurity,
  request: { body: jsonBody(CreateDatasetBody) },
  responses: { 201: jsonResponse(DatasetSchema, "The new dataset"), ...errorResponses },
});

const listDatasetsRoute = createRoute({
  method: "get",
  path: "/api/datasets",
  operationId: "listDatasets",
  tags,
  summary: "List the project's datasets (oldest first)",
  security: projectSecurity,
  request: { query: PageQuery },
  responses: { 200: jsonResponse(z.array(DatasetSchema), "Datasets"), ...errorResponses },
});

const getDatasetRoute = createRoute({
  method: "get",
  path: "/api/datasets/{id}",
  operationId: "getDataset",
  tags,
  summary: "Get a dataset",
  security: projectSecurity,
  request: { params: DatasetParams },
  responses: {
    200: jsonResponse(DatasetDetailSchema, "The dataset and the state of its vector index"),
    ...errorResponses,
  },
});

const deleteDatasetRoute = createRoute({
  method: "delete",
  path: "/api/datasets/{id}",
  operationId: "deleteDataset",
  tags,
  summary: "Delete a dataset with its documents, rows and files",
  security: projectSecurity,
  request: { params: DatasetParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses },
});

export function registerDatasets(app: OpenAPIHono<HonoEnv>) {
  app.openapi(createDatasetRoute, async (c) => {
    const { config } = c.var.services;
    const dataset = await createDataset(c.var.project, c.req.valid("json"), {
      embeddingModel: config.EMBEDDING_MODEL,
      graph: vectorGraphOverrides(config),
    });
    return c.json(dataset, 201);
  });
  app.openapi(listDatasetsRoute, async (c) => {
    const found = await listDatasets(c.var.project, toPage(c.req.valid("query")));
    return c.json(found, 200);
  });
  app.openapi(getDatasetRoute, async (c) => {
    return c.json(await getDataset(c.var.project, c.req.valid("param").id), 200);
  });
  app.openapi(deleteDatasetRoute, async (c) => {
    await deleteDataset(c.var.project, c.req.valid("param").id, c.var.services.files);
    c.var.services.authCache.forgetDataset(c.req.valid("param").id);
    return c.body(null, 204);
  });
}
