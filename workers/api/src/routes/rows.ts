import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  BadRequestError,
  deleteRow,
  listRows,
  textCharacters,
  updateRow,
  upsertRows,
  writeRowsOfDocument,
} from "@quarry/core";
import type { Context } from "hono";
import { integerParam, readGetParams } from "../http/get-params.ts";
import type { HonoEnv } from "../http/hono-env.ts";
import { errorResponses, jsonBody, jsonResponse, projectSecurity } from "../http/openapi.ts";
import { DatasetParams, DocumentParams } from "../http/schemas/management.ts";
import {
  ListRowsQuery,
  RowParams,
  RowSchema,
  RowsBody,
  RowsWrittenSchema,
  UpdateRowBody,
  UpsertRowsBody,
} from "../http/schemas/rows.ts";

const tags = ["Rows"];
const conflict = {
  409: {
    description: "The document is being ingested from a file",
    content: errorResponses[400].content,
  },
};
const upstream = {
  502: { description: "The embedding provider failed", content: errorResponses[400].content },
};

const upsertRoute = createRoute({
  method: "post",
  path: "/api/datasets/{id}/rows/upsert",
  operationId: "upsertRows",
  tags,
  summary: "E11 Upsert data rows (creates the document, or replaces its rows)",
  security: projectSecurity,
  request: { params: DatasetParams, body: jsonBody(UpsertRowsBody) },
  responses: {
    200: jsonResponse(RowsWrittenSchema, "The document id and the stored rows, in order"),
    ...errorResponses,
    ...conflict,
    ...upstream,
  },
});

const replaceRoute = createRoute({
  method: "patch",
  path: "/api/datasets/{id}/documents/{document_id}",
  operationId: "replaceRows",
  tags,
  summary: "E12 Replace all rows of a document (atomically)",
  security: projectSecurity,
  request: { params: DocumentParams, body: jsonBody(RowsBody) },
  responses: {
    200: jsonResponse(RowsWrittenSchema, "The document id and the stored rows, in order"),
    ...errorResponses,
    ...conflict,
    ...upstream,
  },
});

const addRoute = createRoute({
  method: "post",
  path: "/api/datasets/{id}/documents/{document_id}/rows",
  operationId: "addRows",
  tags,
  summary: "E13 Add rows to a document",
  security: projectSecurity,
  request: { params: DocumentParams, body: jsonBody(RowsBody) },
  responses: {
    200: jsonResponse(RowsWrittenSchema, "The document id and the added rows, in order"),
    ...errorResponses,
    ...conflict,
    ...upstream,
  },
});

const updateRoute = createRoute({
  method: "patch",
  path: "/api/datasets/{id}/rows/{row_id}",
  operationId: "updateRow",
  tags,
  summary: "E8 Update a row (merges data and metadata; re-embeds when the embedded column changes)",
  security: projectSecurity,
  request: { params: RowParams, body: jsonBody(UpdateRowBody) },
  responses: { 200: jsonResponse(RowSchema, "The updated row"), ...errorResponses, ...upstream },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/datasets/{id}/rows/{row_id}",
  operationId: "deleteRow",
  tags,
  summary: "E14 Delete a row",
  security: projectSecurity,
  request: { params: RowParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses },
});

const listRoute = createRoute({
  method: "get",
  path: "/api/datasets/{id}/rows",
  operationId: "listRows",
  tags,
  summary: "E6 List rows in insertion order, paged, with an optional metadata filter",
  description:
    "Parameters come from a JSON body `{offset, page_size, after, filter}` (a body on GET, as the API contract shows it) or from the query string; the body wins when both are given. For the next page, pass the last row's id as `after`: any page then costs what the first does, and rows written or deleted meanwhile do not shift it.",
  security: projectSecurity,
  request: { params: DatasetParams, query: ListRowsQuery },
  responses: { 200: jsonResponse(z.array(RowSchema), "Rows"), ...errorResponses },
});

/**
 * After a write of rows: their embeddings wait in the dataset's vector backlog, and their
 * index entries in the GIN pending lists; both are moved on after the reply.
 */
function rowsWritten(
  c: Context<HonoEnv>,
  datasetId: string,
  rows: readonly { data?: Record<string, string> }[],
) {
  c.var.services.indexVectorsSoon(c.var.project.projectId, datasetId);
  c.var.services.textWritten(textCharacters(rows));
}

export function registerRows(app: OpenAPIHono<HonoEnv>) {
  app.openapi(upsertRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const written = await upsertRows(c.var.project, id, body);
    rowsWritten(c, id, body.rows);
    return c.json(written, 200);
  });
  app.openapi(replaceRoute, async (c) => {
    const { id, document_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const written = await writeRowsOfDocument(c.var.project, id, document_id, body, "replace");
    rowsWritten(c, id, body.rows);
    return c.json(written, 200);
  });
  app.openapi(addRoute, async (c) => {
    const { id, document_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const written = await writeRowsOfDocument(c.var.project, id, document_id, body, "append");
    rowsWritten(c, id, body.rows);
    return c.json(written, 200);
  });
  app.openapi(updateRoute, async (c) => {
    const { id, row_id } = c.req.valid("param");
    const patch = c.req.valid("json");
    const updated = await updateRow(c.var.project, id, row_id, patch);
    rowsWritten(c, id, [patch]);
    return c.json(updated, 200);
  });
  app.openapi(deleteRoute, async (c) => {
    const { id, row_id } = c.req.valid("param");
    await deleteRow(c.var.project, id, row_id);
    return c.body(null, 204);
  });
  app.openapi(listRoute, async (c) => {
    const params = await readGetParams(c, ["filter"]);
    const known = ["offset", "page_size", "after", "filter"];
    const unknown = Object.keys(params).find((k) => !known.includes(k));
    if (unknown) throw new BadRequestError(`unknown parameter; use ${known.join(", ")}`, unknown);
    const page = {
      offset: integerParam(params.offset, "offset", { min: 0, max: 10_000_000, fallback: 0 }),
      pageSize: integerParam(params.page_size, "page_size", { min: 1, max: 1000, fallback: 100 }),
      after: integerParam(params.after, "after", {
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
        fallback: undefined,
      }),
    };
    return c.json(await listRows(c.var.project, c.req.valid("param").id, page, params.filter), 200);
  });
}
