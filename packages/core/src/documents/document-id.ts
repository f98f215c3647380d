import { BadRequestError } from "../shared/errors.ts";

export const MAX_DOCUMENT_ID_LENGTH = 128;

/**
 * Document ids are chosen by users and become part of storage paths
 * (`/<dataset>/<document>/<file>`), so they are printable and free of path separators.
 */
export function validateDocumentId(value: unknown, path = "document_id"): string {
  if (typeof value !== "string") throw new BadRequestError("must be a string", path);
  if (value.length === 0 || value.length > MAX_DOCUMENT_ID_LENGTH) {
    throw new BadRequestError(`must be 1 to ${MAX_DOCUMENT_ID_LENGTH} characters`, path);
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (/[\u0000-\u001f\u007f/\\]/.test(value) || value === "." || value === "..") {
    throw new BadRequestError("may not contain '/', '\\' or control characters", path);
  }
  if (/[\ud800-\udfff]/.test(value.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ""))) {
    throw new BadRequestError("contains an unpaired surrogate", path);
  }
  return value;
}
