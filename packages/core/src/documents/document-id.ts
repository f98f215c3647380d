import { z } from "zod";
import { parseInput } from "../shared/parse-input.ts";

export const MAX_DOCUMENT_ID_LENGTH = 128;

const LENGTH = { error: `must be 1 to ${MAX_DOCUMENT_ID_LENGTH} characters` };

/**
 * Document ids are chosen by users and become part of storage paths
 * (`/<dataset>/<document>/<file>`), so they are printable and free of path separators.
 */
export const DocumentId = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .min(1, LENGTH)
  .max(MAX_DOCUMENT_ID_LENGTH, LENGTH)
  .refine(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
    (id) => !/[\u0000-\u001f\u007f/\\]/.test(id) && id !== "." && id !== "..",
    { error: "may not contain '/', '\\' or control characters" },
  )
  .refine((id) => !/[\ud800-\udfff]/.test(id.replace(/[\ud800-\udbff][\udc00-\udfff]/g, "")), {
    error: "contains an unpaired surrogate",
  });

/** A document id from outside a schema (an upload's form field), named by `path`. */
export function validateDocumentId(value: unknown, path = "document_id"): string {
  return parseInput(DocumentId, value, { at: path });
}
