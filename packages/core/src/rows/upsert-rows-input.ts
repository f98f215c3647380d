import { z } from "zod";
import { DocumentId } from "../documents/document-id.ts";
import { RequestRows } from "./row-input.ts";

/** E11's body: without `document_id` a document with a generated id is created. */
export const UpsertRowsInput = z
  .object({ document_id: DocumentId.optional(), rows: RequestRows })
  .strict();
export type UpsertRowsInput = z.output<typeof UpsertRowsInput>;

/** E12's and E13's body: the rows that replace, or are added to, a document's rows. */
export const DocumentRowsInput = z.object({ rows: RequestRows }).strict();
export type DocumentRowsInput = z.output<typeof DocumentRowsInput>;
