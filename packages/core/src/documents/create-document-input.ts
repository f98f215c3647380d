import { z } from "zod";
import { UserMetadataInput } from "../rows/row-metadata.ts";
import { DocumentId } from "./document-id.ts";

export const MAX_DOCUMENT_FILENAME_LENGTH = 255;
export const MAX_DOCUMENT_URL_LENGTH = 2048;

/**
 * E5's body: inline `content`, or `url` fetched when `parse_url` is true. The chunk limits
 * depend on the dataset's kind and are checked against it (`validateChunkOptions`).
 */
export const CreateDocumentInput = z
  .object({
    id: DocumentId,
    filename: z.string().max(MAX_DOCUMENT_FILENAME_LENGTH).optional(),
    url: z.string().max(MAX_DOCUMENT_URL_LENGTH).optional(),
    content: z.string().optional(),
    parse_url: z.boolean().optional(),
    chunk_size: z.number().int().optional(),
    chunk_overlap: z.number().int().optional(),
    metadata: UserMetadataInput.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.parse_url !== true) return;
    if (body.url === undefined) {
      ctx.addIssue({
        code: "custom",
        message: "is required when parse_url is true",
        path: ["url"],
      });
    }
    if (body.content !== undefined) {
      ctx.addIssue({
        code: "custom",
        message: "give either content or parse_url, not both",
        path: ["content"],
      });
    }
  });
export type CreateDocumentInput = z.output<typeof CreateDocumentInput>;
