import {
  assertDocumentIdFree,
  BadRequestError,
  checkUploadPart,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_FIELD_BYTES,
  newUuid,
  PayloadTooLargeError,
  type ProjectContext,
  type RawUploadFields,
  type StoredUpload,
  UPLOAD_SNIFF_BYTES,
  type UploadDataset,
  type UploadFields,
  uploadContentType,
  uploadFilename,
  uploadKey,
  uploadSourceKind,
  validateUploadFields,
} from "@quarry/core";
import { assertStorable } from "../http/storable-input.ts";
import { discardBody, MultipartReader, multipartBoundary, type PartHeaders } from "./multipart.ts";
import { R2FileWriter } from "./r2-writer.ts";

/**
 * Everything in an upload's body but the file's bytes: at most five text fields of
 * 64 KiB, six part headers of 8 KiB, a 16 KiB preamble and the framing. A Content-Length
 * above the file limit plus this cannot hold an acceptable upload.
 */
export const MAX_FORM_OVERHEAD = 512 * 1024;

/**
 * A refused upload is read to its end before the reply (see `discardBody`) as long as
 * the whole body stays within this, so an upload a little over the limit — the usual case
 * — surely gets its 413; what a client sends beyond it is left to the runtime rather than
 * read by the service.
 */
export const MAX_DRAIN_BYTES = 2 * MAX_UPLOAD_BYTES;
const MAX_EPILOGUE_BYTES = 64 * 1024;

export interface UploadTarget {
  project: ProjectContext;
  datasetId: string;
  /** the dataset's kind and declared metadata types, which E9's fields are checked against */
  dataset: UploadDataset;
  bucket: R2Bucket;
}

export interface ReceivedUpload {
  fields: UploadFields & { documentId: string };
  stored: StoredUpload;
  /** the file as written, to be discarded if the document cannot be registered */
  writer: R2FileWriter;
  /** when the id came after the file part, the file is under this key and must be moved */
  provisionalKey: string | null;
}

export function payloadTooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `file: larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB (${MAX_UPLOAD_BYTES} bytes); nothing was stored`,
  );
}

/**
 * Reads an E9 body part by part: text fields are validated as they arrive (before the
 * file when the client sends them first), the file streams into R2 under
 * `<dataset>/<document>/<safe name>`, its size counted against the limit. On any failure
 * nothing is left in R2 and the rest of the body is drained (bounded) so that the error
 * reply reaches the client.
 */
export async function receiveUpload(
  request: Request,
  target: UploadTarget,
): Promise<ReceivedUpload> {
  const body = request.body;
  let boundary: string;
  try {
    // E9 requires the header (docs/api.md#e9-upload): without one the form is missing (400);
    // another type is a form we do not take (415).
    const contentType = request.headers.get("content-type");
    if (!contentType) {
      throw new BadRequestError(
        "is required: multipart/form-data with a 'file' part",
        "Content-Type",
      );
    }
    boundary = multipartBoundary(contentType);
    if (!body) throw new BadRequestError("is empty; send the form with a 'file' part", "body");
  } catch (error) {
    if (body) await discardBody(body, MAX_DRAIN_BYTES);
    throw error;
  }
  // Decided from the declared length before a byte is parsed or stored.
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > MAX_UPLOAD_BYTES + MAX_FORM_OVERHEAD) {
    await discardBody(body, declared <= MAX_DRAIN_BYTES ? MAX_DRAIN_BYTES : 0);
    throw payloadTooLarge();
  }

  const reader = new MultipartReader(body, boundary);
  let writer: R2FileWriter | null = null;
  try {
    const raw: RawUploadFields = {};
    const seen = new Set<string>();
    let file: { part: PartHeaders; filename: string; provisional: string | null } | null = null;
    for (let part = await reader.nextPart(); part !== null; part = await reader.nextPart()) {
      const field = checkUploadPart(part.name, part.filename !== null, seen);
      seen.add(field);
      if (field !== "file") {
        raw[field] = await reader.readText(MAX_UPLOAD_FIELD_BYTES, field);
        validateUploadFields(raw, target.dataset, { complete: false });
        continue;
      }
      const early = validateUploadFields(raw, target.dataset, { complete: false });
      if (early.documentId !== null) {
        await assertDocumentIdFree(target.project, target.datasetId, early.documentId);
      }
      const filename = uploadFilename(part.filename);
      // Without an id yet, a fresh v4 UUID names the document — or, if an id field follows
      // the file, a provisional key that is unique, so nothing else's file is ever touched.
      const documentId = early.documentId ?? newUuid();
      const key = uploadKey(target.datasetId, documentId, filename);
      writer = await streamFile(reader, part, filename, key, target.bucket);
      file = { part, filename, provisional: early.documentId === null ? documentId : null };
    }
    await reader.drain(MAX_EPILOGUE_BYTES);
    if (file === null || writer === null) {
      throw new BadRequestError("is required (a file part named 'file')", "file");
    }

    const fields = validateUploadFields(raw, target.dataset);
    assertStorable(fields.metadata, "metadata");
    const documentId = fields.documentId ?? file.provisional!;
    const key = uploadKey(target.datasetId, documentId, file.filename);
    return {
      fields: { ...fields, documentId },
      stored: {
        key,
        filename: file.filename,
        contentType: uploadContentType(file.part.contentType),
      },
      writer,
      provisionalKey: key === writer.key ? null : writer.key,
    };
  } catch (error) {
    await writer?.discard();
    if (!reader.complete) await reader.drain(MAX_DRAIN_BYTES - reader.bytesRead);
    throw error;
  }
}

/** Streams the current part into R2; the type is decided from its first bytes before any write. */
async function streamFile(
  reader: MultipartReader,
  part: PartHeaders,
  filename: string,
  key: string,
  bucket: R2Bucket,
): Promise<R2FileWriter> {
  const head: Uint8Array[] = [];
  let headSize = 0;
  while (headSize < UPLOAD_SNIFF_BYTES) {
    const chunk = await reader.read();
    if (chunk === null) break;
    head.push(chunk);
    headSize += chunk.length;
  }
  if (headSize === 0) throw new BadRequestError("is empty", "file");
  const contentType = uploadContentType(part.contentType);
  uploadSourceKind({ contentType, filename, head: joinHead(head, headSize) });

  const writer = new R2FileWriter(
    bucket,
    key,
    contentType ? { httpMetadata: { contentType } } : {},
  );
  try {
    for (const chunk of head) await write(writer, chunk);
    for (let chunk = await reader.read(); chunk !== null; chunk = await reader.read()) {
      await write(writer, chunk);
    }
    await writer.finish();
    return writer;
  } catch (error) {
    await writer.discard();
    throw error;
  }
}

async function write(writer: R2FileWriter, chunk: Uint8Array): Promise<void> {
  if (writer.size + chunk.length > MAX_UPLOAD_BYTES) throw payloadTooLarge();
  await writer.write(chunk);
}

function joinHead(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(Math.min(size, UPLOAD_SNIFF_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= out.length) break;
    const take = chunk.subarray(0, out.length - offset);
    out.set(take, offset);
    offset += take.length;
  }
  return out;
}
