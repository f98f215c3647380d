import { z } from "@hono/zod-openapi";
import { DocumentRowsInput, RequestRow, UpdateRowInput, UpsertRowsInput } from "@quarry/core";
import { documented } from "../openapi.ts";

/**
 * Row shapes (docs/api.md#rows). The request schemas are core's (`packages/core/src/rows`);
 * this file documents them. The rules that depend on the dataset (its columns, its declared
 * metadata types) are checked by the domain, naming the offending path.
 */

/** How declared `metadata_columns` bind user metadata; said wherever metadata is written. */
export const DECLARED_METADATA_TYPES =
  'Keys the dataset declares in `metadata_columns` must have exactly the declared type (no coercion: `"2024"` is not a number), else 400 `bad_request` naming the key (`rows[3].metadata.year: expected number`) and nothing is written; other keys take any of the four types. `null` is not a value: leave the key out.';
const userMetadata = {
  description: `User metadata: string, number, boolean or array of strings. ${DECLARED_METADATA_TYPES} \`rowId\`, \`documentId\`, \`url\`, \`chunk\` and \`page\` are the service's and are ignored here.`,
  example: { year: 2021, tags: ["physics"] },
};

documented(RequestRow.shape.data, {
  description: "Column → text; keys are dataset columns",
  example: { text: "…" },
});
documented(RequestRow.shape.metadata, userMetadata);
documented(RequestRow, {}, "RowInput");
documented(UpdateRowInput.shape.metadata, userMetadata);

export const UpsertRowsBody = UpsertRowsInput.openapi("UpsertRows");
documented(UpsertRowsInput.shape.document_id, {
  description: "Document to upsert; created when missing, its rows replaced when present",
});
export const RowsBody = DocumentRowsInput.openapi("Rows");
export const UpdateRowBody = UpdateRowInput.openapi("UpdateRow");

export const RowSchema = z
  .object({
    id: z.number().int(),
    dataset_id: z.string(),
    data: z.record(z.string(), z.string()),
    embedding_vector_ids: z.record(z.string(), z.string()),
    metadata: z.record(z.string(), z.unknown()).openapi({
      description:
        "The user's metadata and the service's keys: `rowId`, `documentId`, `url` (when the document has one), and on rows of chunked documents (uploads, E5) `chunk` (0-based position in the document) and for PDFs `page` (1-based page where the chunk starts). Filters can use all of them.",
    }),
    document_id: z.string(),
    image_paths: z.record(z.string(), z.string()).nullable(),
  })
  .openapi("Row");

export const RowsWrittenSchema = z
  .object({ document_id: z.string(), rows: z.array(RowSchema) })
  .openapi("RowsWritten");

export const RowParams = z.object({
  id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "id", in: "path" }, description: "Dataset id" }),
  row_id: z
    .string()
    .openapi({ param: { name: "row_id", in: "path" }, description: "Row id", example: "42" }),
});

/** E6 parameters; they come from the JSON body or the query string (docs/api.md#pagination). */
export const ListRowsQuery = z.object({
  offset: z.string().optional().openapi({ example: "0", description: "Default 0" }),
  page_size: z
    .string()
    .optional()
    .openapi({ example: "100", description: "Default 100, max 1000" }),
  after: z.string().optional().openapi({
    example: "4200",
    description:
      "A row id: the page starts after it (rows with a greater id, in insertion order). Pass the last row of a page to get the next; `offset` then counts from there",
  }),
  filter: z.string().optional().openapi({
    description: "Metadata filter as JSON text (Pinecone syntax); or send it in a JSON body",
    example: '{"year":{"$gte":2020}}',
  }),
});
