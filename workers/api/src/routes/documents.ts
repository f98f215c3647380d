import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { createDocument, deleteDocument, getDocument, listDocuments } from "@quarry/core";
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
import { CreateDocumentBody } from "../http/schemas/documents.ts";
import { DatasetParams, DocumentParams, DocumentSchema } from "../http/schemas/management.ts";

const tags = ["Documents"];

const listDocumentsRoute = createRoute({
  method: "get",
  path: "/api/datasets/{id}/documents",
  tags,
  summary: "List a dataset's documents with status, progress and row counts",
  security: projectSecurity,
  request: { params: DatasetParams, query: PageQuery },
  responses: { 200: jsonResponse(z.array(DocumentSchema), "Documents"), ...errorResponses },
});

const createDocumentRoute = createRoute({
  method: "post",
  path: "/api/datasets/{id}/documents",
  tags,
  summary: "E5 Create a document from inline content or a fetched URL",
  description:
    "Content of up to 2,000,000 characters (or a fetched file up to 4 MB) is chunked, embedded and stored before the reply: the document comes back `ready` with its `row_count`. Larger documents are stored and ingested in the background: the document comes back `queued` (watch `status` and `progress` on GET). Duplicate ids are a 409.",
  security: projectSecurity,
  request: { params: DatasetParams, body: jsonBody(CreateDocumentBody) },
  responses: {
    200: jsonResponse(DocumentSchema, "The stored document"),
    ...errorResponses,
    409: errorResponse("A document with this id exists in the dataset"),
    413: errorResponse("The fetched document is larger than 20 MB"),
    415: errorResponse("The URL's content type cannot be parsed"),
    502: errorResponse("The embedding provider failed"),
  },
});

const getDocumentRoute = createRoute({
  method: "get",
  path: "/api/datasets/{id}/documents/{document_id}",
  tags,
  summary: "Get a document",
  security: projectSecurity,
  request: { params: DocumentParams },
  responses: { 200: jsonResponse(DocumentSchema, "The document"), ...errorResponses },
});

const deleteDocumentRoute = createRoute({
  method: "delete",
  path: "/api/datasets/{id}/documents/{document_id}",
  tags,
  summary: "Delete a document, its rows and its stored file",
  security: projectSecurity,
  request: { params: DocumentParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses },
});

export function registerDocuments(app: OpenAPIHono<HonoEnv>) {
  app.openapi(listDocumentsRoute, async (c) => {
    const found = await listDocuments(
      c.var.project,
      c.req.valid("param").id,
      toPage(c.req.valid("query")),
    );
    return c.json(found, 200);
  });
  app.openapi(createDocumentRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { services, project } = c.var;
    const sources = {
      fetchUrl: services.fetchUrl,
      files: services.files,
      enqueue: services.enqueue,
    };
    const created = await createDocument(project, id, c.req.valid("json"), sources);
    services.indexVectorsSoon(project.projectId, id);
    return c.json(created, 200);
  });
  app.openapi(getDocumentRoute, async (c) => {
    const { id, document_id } = c.req.valid("param");
    return c.json(await getDocument(c.var.project, id, document_id), 200);
  });
  app.openapi(deleteDocumentRoute, async (c) => {
    const { id, document_id } = c.req.valid("param");
    await deleteDocument(c.var.project, id, document_id, c.var.services.files);
    return c.body(null, 204);
  });
}
