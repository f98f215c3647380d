import { z } from "@hono/zod-openapi";
import { DECLARED_METADATA_TYPES, MetadataValue } from "./rows.ts";

/** E5's body. The domain validates again (chunk limits per dataset kind, metadata values). */
export const CreateDocumentBody = z
  .object({
    id: z.string().min(1).max(128).openapi({ description: "Document id; unique in the dataset" }),
    filename: z.string().max(255).optional(),
    url: z.string().max(2048).optional(),
    content: z.string().optional().openapi({ description: "Inline text of the document" }),
    parse_url: z.boolean().optional().openapi({
      description:
        "Fetch `url` (public http/https only) and parse it: HTML, text, Markdown, PDF, CSV",
    }),
    chunk_size: z.number().int().optional().openapi({
      description: "Characters per chunk; default 1000, max 2000 (hybrid) / 5000 (standard)",
    }),
    chunk_overlap: z.number().int().optional().openapi({
      description: "Characters shared by neighbouring chunks; default 100, below chunk_size",
    }),
    metadata: z
      .record(z.string(), MetadataValue)
      .optional()
      .openapi({ description: `Added to every row of the document. ${DECLARED_METADATA_TYPES}` }),
  })
  .strict()
  .openapi("CreateDocument");
