import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  attachmentDisposition,
  createDocument,
  deleteDocument,
  getDocument,
  listDocuments,
  openDocumentFile,
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
import { CreateDocumentBody } from "../http/schemas/documents.ts";
import { DatasetParams, DocumentParams, DocumentSchema } from "../http/schemas/management.ts";

const tags = ["Documents"];

const listDocumentsRoute = createRoute({
  method: "get",
  path: "/api/datasets/{id}/documents",
  operationId: "listDocuments",
  tags,
  summary: "List a dataset's documents with status, progress and row counts",
  security: projectSecurity,
  request: { params: DatasetParams, query: PageQuery },
  responses: { 200: jsonResponse(z.array(DocumentSchema), "Documents"), ...errorResponses },
});

const createDocumentRoute = createRoute({
  method: "post",
  path: "/api/datasets/{id}/documents",
  operationId: "createDocument",
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
    415: errorResponse(
      "The URL's content cannot be parsed: a type we do not read, or binary bytes served as text",
    ),
    502: errorResponse("The embedding provider failed"),
  },
});

const getDocumentRoute = createRoute({
  method: "get",
  path: "/api/datasets/{id}/documents/{document_id}",
  operationId: "getDocument",
  tags,
  summary: "Get a document",
  security: projectSecurity,
  request: { params: DocumentParams },
  responses: { 200: jsonResponse(DocumentSchema, "The document"), ...errorResponses },
});

const deleteDocumentRoute = createRoute({
  method: "delete",
  path: "/api/datasets/{id}/documents/{document_id}",
  operationId: "deleteDocument",
  tags,
  summary: "Delete a document, its rows and its stored file",
  security: projectSecurity,
  request: { params: DocumentParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses },
});

const downloadDocumentFileRoute = createRoute({
  method: "get",
  path: "/api/datasets/{id}/documents/{document_id}/file",
  operationId: "downloadDocumentFile",
  tags,
  summary: "Download a document's original file",
  description:
    "Streams the file as it was uploaded (or as E5 stored a large or PDF source), byte for byte, with the Content-Type it was stored with and `Content-Disposition: attachment` carrying its file name (`filename`, and `filename*` in UTF-8 when the name is not plain ASCII). This is how a document's file is opened: its `url` is the storage key, not a link. Rows of files say where they come from (`chunk`, and `page` for PDFs), so a search result can be cited with this file and a page. A document without a stored file (inline content, a page parsed on arrival, rows written with E11–E13) is a 404.",
  security: projectSecurity,
  request: { params: DocumentParams },
  responses: {
    200: {
      description: "The file's bytes",
      headers: z.object({
        "Content-Disposition": z.string().openapi({
          example: `attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`,
        }),
        "Content-Length": z.string().openapi({ example: "52311" }),
      }),
      content: {
        "application/octet-stream": {
          schema: {
            type: "string" as const,
            format: "binary",
            description: "The stored bytes; the Content-Type is the file's own",
          },
        },
      },
    },
    ...errorResponses,
    404: errorResponse("Unknown dataset or document, or a document that has no stored file"),
  },
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
  app.openapi(downloadDocumentFileRoute, async (c) => {
    const { id, document_id } = c.req.valid("param");
    const file = await openDocumentFile(c.var.project, id, document_id, c.var.services.files);
    return c.body(file.body, 200, {
      "Content-Type": file.contentType,
      "Content-Length": String(file.size),
      // An attachment, never rendered: the file is whatever a user uploaded, and a browser
      // cannot send the API key with a plain link anyway. The sandbox keeps an HTML file
      // inert on this origin even if a client renders it.
      "Content-Disposition": attachmentDisposition(file.filename),
      "Content-Security-Policy": "default-src 'none'; sandbox",
    });
  });
  app.openapi(deleteDocumentRoute, async (c) => {
    const { id, document_id } = c.req.valid("param");
    await deleteDocument(c.var.project, id, document_id, c.var.services.files);
    return c.body(null, 204);
  });
}
