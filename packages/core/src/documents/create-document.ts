import { documents } from "@quarry/db";
import { and, eq, sql } from "drizzle-orm";
import { chunkText, validateChunkOptions } from "../chunking/chunk-text.ts";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { requireDataset } from "../datasets/require-dataset.ts";
import { sanitizeFilename } from "../fetching/sanitize-filename.ts";
import type { IngestMessage } from "../ingestion/ingest-message.ts";
import { parseSource, requireSourceKind } from "../parsing/index.ts";
import { insertRows, withPositions } from "../rows/insert-rows.ts";
import { prepareRows } from "../rows/prepare-rows.ts";
import { embeddedColumn, type RowInput } from "../rows/row-input.ts";
import { type UserMetadata, userMetadataOf } from "../rows/row-metadata.ts";
import { tableToRowInputs } from "../rows/table-rows.ts";
import type { ProjectContext } from "../shared/context.ts";
import { ConflictError, NotFoundError } from "../shared/errors.ts";
import type { FileStore } from "../shared/file-store.ts";
import { writeTransaction } from "../shared/write-transaction.ts";
import type { CreateDocumentInput } from "./create-document-input.ts";
import { type DocumentView, toDocumentView } from "./document-view.ts";

/**
 * Text up to this size is chunked, embedded and stored before E5 returns `ready`
 * (docs/api.md#e5-create-a-document); larger documents are stored and queued, and E5 returns
 * `queued`.
 */
export const SYNC_DOCUMENT_MAX_CHARS = 2_000_000;
/** fetched files above this are parsed by the ingest worker (PDFs and CSVs of any size) */
export const SYNC_SOURCE_MAX_BYTES = 4 * 1024 * 1024;

/** What E5 needs from the edge: the SSRF-safe fetcher, file storage and the ingest queue. */
export interface DocumentSources {
  fetchUrl: UrlFetcher;
  files: FileStore;
  enqueue(message: IngestMessage): Promise<void>;
}

/** Where E5 gets a URL's bytes; the edge supplies the SSRF-safe fetcher. */
export type UrlFetcher = (url: string) => Promise<{
  bytes: Uint8Array;
  contentType: string | null;
  filename: string | null;
}>;

/**
 * E5: creates a document from inline `content`, or from the reply to `url` when `parse_url`
 * is true, chunked with `chunk_size`/`chunk_overlap`, `metadata` on every row. The id is
 * reserved first (a duplicate is a 409 at once); if anything later fails the reservation is
 * removed again, so a failed request leaves nothing behind.
 */
export async function createDocument(
  ctx: ProjectContext,
  datasetId: string,
  body: CreateDocumentInput,
  sources: DocumentSources,
): Promise<DocumentView> {
  const dataset = await requireDataset(ctx, datasetId);
  const input = documentInput(dataset, body);
  await reserve(ctx, dataset, input);
  try {
    const source = await loadSource(input, sources.fetchUrl);
    if (source?.kind === "large")
      return await queueLargeSource(ctx, dataset, input, source, sources);
    const inputs = source ? toRowInputs(dataset, source, input) : [];
    const prepared = await prepareRows(ctx, dataset, inputs, input.metadata);
    return await writeTransaction(ctx.db, dataset.id, async (tx) => {
      const [document] = await tx
        .update(documents)
        .set({
          status: "ready",
          filename: input.filename ?? source?.filename ?? null,
          contentType: source?.contentType ?? null,
          content: source?.kind === "text" ? source.text : null,
          updatedAt: sql`now()`,
        })
        .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, input.id)))
        .returning();
      if (!document) throw new NotFoundError("Document", input.id);
      // every row says its place in the document (`chunk`, 0-based)
      const positioned = withPositions(prepared, 0);
      await insertRows(tx, ctx.projectId, dataset, { id: input.id, url: input.url }, positioned);
      return toDocumentView(document, prepared.length);
    });
  } catch (error) {
    await ctx.db
      .delete(documents)
      .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, input.id)));
    throw error;
  }
}

interface DocumentInput {
  id: string;
  filename: string | null;
  url: string | null;
  content: string | null;
  parseUrl: boolean;
  chunkSize: number;
  chunkOverlap: number;
  metadata: UserMetadata;
}

/** E5's body against the dataset: chunk limits of its kind, types of its declared metadata. */
function documentInput(dataset: DatasetRecord, body: CreateDocumentInput): DocumentInput {
  const chunking = validateChunkOptions(
    {
      ...(body.chunk_size !== undefined ? { chunkSize: body.chunk_size } : {}),
      ...(body.chunk_overlap !== undefined ? { chunkOverlap: body.chunk_overlap } : {}),
    },
    dataset.kind,
  );
  return {
    id: body.id,
    filename: body.filename ?? null,
    url: body.url ?? null,
    content: body.content ?? null,
    parseUrl: body.parse_url === true,
    ...chunking,
    metadata: userMetadataOf(body.metadata ?? {}, "metadata", dataset.metadataColumns),
  };
}

async function reserve(ctx: ProjectContext, dataset: DatasetRecord, input: DocumentInput) {
  const inserted = await ctx.db
    .insert(documents)
    .values({
      projectId: ctx.projectId,
      datasetId: dataset.id,
      id: input.id,
      filename: input.filename,
      url: input.url,
      status: "processing",
      metadata: input.metadata,
      chunkSize: input.chunkSize,
      chunkOverlap: input.chunkOverlap,
    })
    .onConflictDoNothing()
    .returning({ id: documents.id });
  if (inserted.length === 0) {
    throw new ConflictError(`document '${input.id}' already exists in this dataset`);
  }
}

type LoadedSource =
  | { kind: "text"; text: string; filename: string | null; contentType: string | null }
  | { kind: "large"; bytes: Uint8Array; filename: string | null; contentType: string | null }
  | {
      kind: "table";
      records: Record<string, string>[];
      filename: string | null;
      contentType: string | null;
    };

async function loadSource(
  input: DocumentInput,
  fetchUrl: UrlFetcher,
): Promise<LoadedSource | null> {
  if (input.content !== null) {
    if (input.content.length > SYNC_DOCUMENT_MAX_CHARS) {
      const bytes = new TextEncoder().encode(input.content);
      return { kind: "large", bytes, filename: null, contentType: "text/plain; charset=utf-8" };
    }
    return { kind: "text", text: input.content, filename: null, contentType: "text/plain" };
  }
  if (!input.parseUrl || input.url === null) return null;
  const fetched = await fetchUrl(input.url);
  if (fetched.bytes.length > SYNC_SOURCE_MAX_BYTES) {
    // Decided before anything is stored, as parseSource decides for smaller replies: binary
    // bytes are a 415 whatever the server called them (and a PDF served as text is a PDF).
    requireSourceKind(fetched.bytes, fetched);
    return {
      kind: "large",
      bytes: fetched.bytes,
      filename: fetched.filename,
      contentType: fetched.contentType,
    };
  }
  const parsed = await parseSource(fetched.bytes, {
    contentType: fetched.contentType,
    filename: fetched.filename,
  });
  const meta = { filename: fetched.filename, contentType: fetched.contentType };
  // PDFs of any size are read by the ingest worker: E5 returns the document queued.
  if (parsed.kind === "pages") return { kind: "large", bytes: fetched.bytes, ...meta };
  if (parsed.kind === "table") return { kind: "table", records: parsed.records, ...meta };
  return { kind: "text", text: parsed.text, ...meta };
}

/**
 * Larger documents go the upload way: the source is stored and the ingest worker processes
 * it in bounded slices. E5 returns the document `queued`.
 */
async function queueLargeSource(
  ctx: ProjectContext,
  dataset: DatasetRecord,
  input: DocumentInput,
  source: Extract<LoadedSource, { kind: "large" }>,
  sources: DocumentSources,
): Promise<DocumentView> {
  const filename = sanitizeFilename(input.filename ?? source.filename ?? "") ?? "content.txt";
  const key = `${dataset.id}/${input.id}/${filename}`;
  await sources.files.put(key, source.bytes, source.contentType);
  try {
    const [document] = await ctx.db
      .update(documents)
      .set({
        status: "queued",
        storageKey: key,
        filename: input.filename ?? source.filename ?? null,
        contentType: source.contentType,
        updatedAt: sql`now()`,
      })
      .where(and(eq(documents.datasetId, dataset.id), eq(documents.id, input.id)))
      .returning();
    await sources.enqueue({
      v: 1,
      projectId: ctx.projectId,
      datasetId: dataset.id,
      documentId: input.id,
      cursor: null,
    });
    return toDocumentView(document!, 0);
  } catch (error) {
    await sources.files.delete(key);
    throw error;
  }
}

function toRowInputs(
  dataset: DatasetRecord,
  source: LoadedSource,
  input: DocumentInput,
): RowInput[] {
  if (source.kind === "large") return [];
  if (source.kind === "table") return tableToRowInputs(dataset, source.records);
  const column = embeddedColumn(dataset) ?? dataset.columns[0]?.name ?? "text";
  return chunkText(source.text, input).map((chunk) => ({
    data: { [column]: chunk.text },
    metadata: {},
  }));
}
