import { CreateDocumentInput } from "@quarry/core";
import { documented } from "../openapi.ts";
import { DECLARED_METADATA_TYPES } from "./rows.ts";

/** E5's body: core's schema (`packages/core/src/documents/create-document-input.ts`), documented. */
const fields = CreateDocumentInput.shape;
documented(fields.id, { description: "Document id; unique in the dataset" });
documented(fields.content, { description: "Inline text of the document" });
documented(fields.parse_url, {
  description: "Fetch `url` (public http/https only) and parse it: HTML, text, Markdown, PDF, CSV",
});
documented(fields.chunk_size, {
  description: "Characters per chunk; default 1000, max 2000 (hybrid) / 5000 (standard)",
});
documented(fields.chunk_overlap, {
  description: "Characters shared by neighbouring chunks; default 100, below chunk_size",
});
documented(fields.metadata, {
  description: `Added to every row of the document. ${DECLARED_METADATA_TYPES}`,
});

export const CreateDocumentBody = CreateDocumentInput.openapi("CreateDocument");
