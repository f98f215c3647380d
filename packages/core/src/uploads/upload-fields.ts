import type { MetadataColumnDefinition } from "@quarry/db";
import { type ChunkOptions, MAX_CHUNK_SIZE, validateChunkOptions } from "../chunking/chunk-text.ts";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { validateDocumentId } from "../documents/document-id.ts";
import { type UserMetadata, UserMetadataInput, userMetadataOf } from "../rows/row-metadata.ts";
import { BadRequestError } from "../shared/errors.ts";
import { parseInput } from "../shared/parse-input.ts";

/** The part that carries the file. */
export const UPLOAD_FILE_FIELD = "file";

/**
 * E9's text fields. The original contract lists the id as `document-id` while its examples
 * send `document_id`; both are accepted (docs/api.md#e9-upload).
 */
export const UPLOAD_TEXT_FIELDS = [
  "chunk_size",
  "chunk_overlap",
  "document_id",
  "document-id",
  "metadata",
] as const;
export type UploadTextField = (typeof UPLOAD_TEXT_FIELDS)[number];
export type RawUploadFields = Partial<Record<UploadTextField, string>>;

/** A text field's value is read into memory, so it is bounded; 64 KB of metadata JSON is plenty. */
export const MAX_UPLOAD_FIELD_BYTES = 64 * 1024;

export interface UploadFields extends ChunkOptions {
  /** null when the client sent none: the caller generates a v4 UUID */
  documentId: string | null;
  metadata: UserMetadata;
}

const EXPECTED = "expected file, chunk_size, chunk_overlap, document_id (or document-id), metadata";

export function isUploadTextField(name: string): name is UploadTextField {
  return (UPLOAD_TEXT_FIELDS as readonly string[]).includes(name);
}

/**
 * A part's name is checked as soon as its headers arrive, so an unknown field (or a
 * second file) is refused before anything is stored.
 */
export function checkUploadPart(
  name: string,
  isFile: boolean,
  seen: ReadonlySet<string>,
): "file" | UploadTextField {
  if (name === UPLOAD_FILE_FIELD) {
    if (!isFile) throw new BadRequestError("must be a file part (with a filename)", name);
    if (seen.has(name)) throw new BadRequestError("only one file per upload", name);
    return UPLOAD_FILE_FIELD;
  }
  if (!isUploadTextField(name)) {
    throw new BadRequestError(`unknown form field; ${EXPECTED}`, name === "" ? "(unnamed)" : name);
  }
  if (isFile) throw new BadRequestError("must be a text field, not a file", name);
  if (seen.has(name)) throw new BadRequestError("given more than once", name);
  return name;
}

/** What E9's fields are checked against: chunk limits by kind, metadata by declared types. */
export interface UploadDataset {
  kind: DatasetRecord["kind"];
  metadataColumns: readonly MetadataColumnDefinition[];
}

/**
 * Validates E9's text fields against the dataset (chunk limits of its kind, the types of its
 * declared metadata columns). With `complete: false` only the fields present are checked,
 * each on its own — fields after the file part may still come (a `chunk_overlap` of 150 is
 * fine before we know whether `chunk_size` will be 200).
 * Empty values count as absent, as HTML forms send blank inputs.
 */
export function validateUploadFields(
  raw: RawUploadFields,
  dataset: UploadDataset,
  { complete = true }: { complete?: boolean } = {},
): UploadFields {
  const { kind } = dataset;
  const size = integerField(raw.chunk_size, "chunk_size");
  const overlap = integerField(raw.chunk_overlap, "chunk_overlap");
  const chunking = complete
    ? validateChunkOptions(
        {
          ...(size !== undefined ? { chunkSize: size } : {}),
          ...(overlap !== undefined ? { chunkOverlap: overlap } : {}),
        },
        kind,
      )
    : validateChunkOptions(
        { chunkSize: size ?? MAX_CHUNK_SIZE[kind], chunkOverlap: overlap ?? 0 },
        kind,
      );
  return {
    ...chunking,
    documentId: documentIdField(raw),
    metadata: metadataField(raw.metadata, dataset.metadataColumns),
  };
}

function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

function integerField(value: string | undefined, path: string): number | undefined {
  if (!present(value)) return undefined;
  const text = value.trim();
  if (!/^[+-]?\d{1,15}$/.test(text)) throw new BadRequestError("must be an integer", path);
  return Number(text);
}

function documentIdField(raw: RawUploadFields): string | null {
  const underscore = present(raw.document_id) ? raw.document_id : undefined;
  const dash = present(raw["document-id"]) ? raw["document-id"] : undefined;
  if (underscore !== undefined && dash !== undefined && underscore !== dash) {
    throw new BadRequestError("differs from document_id; send one of them", "document-id");
  }
  if (underscore !== undefined) return validateDocumentId(underscore, "document_id");
  if (dash !== undefined) return validateDocumentId(dash, "document-id");
  return null;
}

function metadataField(
  value: string | undefined,
  declared: UploadDataset["metadataColumns"],
): UserMetadata {
  if (!present(value)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new BadRequestError("is not valid JSON (send the JSON text of an object)", "metadata");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new BadRequestError("must be an object", "metadata");
  }
  // The declared types first: a declared key's `null` is refused naming the type it needs.
  const user = userMetadataOf(parsed as Record<string, unknown>, "metadata", declared);
  return parseInput(UserMetadataInput, user, { at: "metadata" });
}
