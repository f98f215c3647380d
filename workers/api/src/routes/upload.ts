import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_FIELD_BYTES,
  registerUpload,
  requireDataset,
} from "@quarry/core";
import type { HonoEnv } from "../http/hono-env.ts";
import { errorResponse, errorResponses, jsonResponse, projectSecurity } from "../http/openapi.ts";
import { DatasetParams } from "../http/schemas/management.ts";
import { DECLARED_METADATA_TYPES } from "../http/schemas/rows.ts";
import { moveObject } from "../upload/r2-writer.ts";
import { receiveUpload } from "../upload/receive-upload.ts";

const UploadReply = z
  .object({
    body: z.literal("OK"),
    document_id: z.string().openapi({ description: "The queued document's id" }),
  })
  .openapi("UploadReply");

/**
 * The form is documented with a plain OpenAPI schema on purpose: a zod schema would make
 * @hono/zod-openapi install its form validator, which buffers the whole body with
 * `parseBody()`. The handler streams the body itself (upload/multipart.ts).
 */
const uploadForm = () => ({
  type: "object" as const,
  required: ["file"],
  properties: {
    file: {
      type: "string" as const,
      format: "binary",
      description: `PDF, CSV, plain text, Markdown or HTML, up to ${MAX_UPLOAD_BYTES} bytes. The type is decided by the first bytes (a file starting with \`%PDF-\` is a PDF whatever its name or type; binary bytes are never text), then the part's Content-Type and the file extension; anything else is a 415. Download it again with \`GET /api/datasets/{id}/documents/{document_id}/file\`.`,
    },
    chunk_size: {
      type: "integer" as const,
      default: 1000,
      description: "Characters per chunk; at most 2000 for hybrid and 5000 for standard datasets",
    },
    chunk_overlap: {
      type: "integer" as const,
      default: 100,
      description: "Characters shared by neighbouring chunks; smaller than chunk_size",
    },
    document_id: {
      type: "string" as const,
      maxLength: 128,
      description:
        "Id of the document to create (also accepted as `document-id`); a v4 UUID when omitted. Unique in the dataset: a duplicate is a 409.",
    },
    "document-id": {
      type: "string" as const,
      maxLength: 128,
      description: "Alias of `document_id`",
    },
    metadata: {
      type: "string" as const,
      maxLength: MAX_UPLOAD_FIELD_BYTES,
      description: `JSON text of an object added to every row; values are strings, numbers, booleans or arrays of strings. ${DECLARED_METADATA_TYPES} Sent before the file, a bad value is refused before a byte is stored; sent after it, the stored file is removed again.`,
      example: '{"source":"handbook","year":2024}',
    },
  },
});

const uploadRoute = createRoute({
  method: "post",
  path: "/api/datasets/{id}/upload",
  operationId: "uploadFile",
  tags: ["Documents"],
  summary: "E9 Upload a file; it is stored and queued for ingestion",
  description:
    "The body streams to storage; the document is created `queued` and ingested in the background (poll `GET /api/datasets/{id}/documents/{document_id}` for `status` and `progress`). Its `url` is `/<dataset_id>/<document_id>/<file name>`. Form fields may come before or after the file; any other field is a 400.",
  security: projectSecurity,
  request: {
    params: DatasetParams,
    body: {
      required: true,
      description: "multipart/form-data with a `file` part and optional fields",
      content: { "multipart/form-data": { schema: uploadForm() } },
    },
  },
  responses: {
    200: jsonResponse(UploadReply, "Stored and queued"),
    ...errorResponses,
    409: errorResponse("A document with this id exists in the dataset; nothing was stored"),
    413: errorResponse(`The file is larger than ${MAX_UPLOAD_BYTES} bytes; nothing was stored`),
    415: errorResponse(
      "Not multipart/form-data, a file type that cannot be parsed, or binary bytes named or typed as text",
    ),
  },
});

export function registerUploads(app: OpenAPIHono<HonoEnv>) {
  app.openapi(uploadRoute, async (c) => {
    const { project } = c.var;
    const dataset = await requireDataset(project, c.req.valid("param").id);
    const bucket = c.env.FILES;
    const received = await receiveUpload(c.req.raw, {
      project,
      datasetId: dataset.id,
      dataset,
      bucket,
    });
    const { provisionalKey, stored } = received;
    let moving = false;
    try {
      const reply = await registerUpload(project, dataset.id, received.fields, stored, {
        ...(provisionalKey
          ? {
              place: async () => {
                moving = true;
                await moveObject(bucket, provisionalKey, stored.key);
              },
            }
          : {}),
        enqueue: c.var.services.enqueue,
      });
      return c.json(reply, 200);
    } catch (error) {
      // The writer's own object goes (unless another request has replaced it since); the
      // final key only if this request had reserved the id and started moving into it.
      await received.writer.discard().catch(() => {});
      if (moving) await bucket.delete(stored.key).catch(() => {});
      throw error;
    }
  });
}
