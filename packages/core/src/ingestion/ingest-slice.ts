import { chunkPages } from "../chunking/chunk-pages.ts";
import { type ChunkOptions, chunkText } from "../chunking/chunk-text.ts";
import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { requireDataset } from "../datasets/require-dataset.ts";
import type { DocumentRecord } from "../documents/document-view.ts";
import { findDocument } from "../documents/require-document.ts";
import {
  binaryContentRefusal,
  decodeText,
  detectSourceKind,
  isBinaryContent,
  ParseError,
  type ProseKind,
  pdfPageTexts,
  proseToText,
  splitFrontMatter,
  withoutNul,
} from "../parsing/index.ts";
import { withPositions } from "../rows/insert-rows.ts";
import { prepareRows } from "../rows/prepare-rows.ts";
import { embeddedColumn, type RowInput } from "../rows/row-input.ts";
import type { UserMetadata } from "../rows/row-metadata.ts";
import { tableToRowInputs } from "../rows/table-rows.ts";
import type { ProjectContext } from "../shared/context.ts";
import { parseCsvWindow } from "./csv-slice.ts";
import {
  type IngestCursor,
  type IngestMessage,
  type QueueMessage,
  vectorIndexMessage,
} from "./ingest-message.ts";
import { recordSliceProgress, writeSliceRows } from "./slice-writes.ts";
import type { SourceReader } from "./source-reader.ts";

/**
 * Bounds of one slice: whatever the file, a message parses at most this much and embeds the
 * rows it yields, well inside a Worker's CPU time and 128 MB.
 */
export const SLICE_LIMITS = {
  textBytes: 1024 * 1024,
  /**
   * ~2,000 rows of 500 characters. The slice's rows, their embeddings and one insert
   * statement's payload coexist in memory: 2 MB slices peaked at ~138 MB of isolate heap
   * with buffers (`pnpm bench ingest`), over Workers' 128 MB.
   */
  csvBytes: 1024 * 1024,
  /** a record longer than this is not a CSV we can slice */
  csvMaxWindowBytes: 16 * 1024 * 1024,
  pdfPages: 25,
  /** HTML and non-UTF-8 text are decoded whole; bigger ones must be converted first */
  wholeFileBytes: 20 * 1024 * 1024,
} as const;

export type SliceOutcome = "done" | "continued" | "skipped";

export interface IngestDeps {
  source: SourceReader;
  enqueue(message: QueueMessage): Promise<void>;
}

interface Slice {
  inputs: RowInput[];
  /** PDFs: the page each input starts on, in step with `inputs` */
  pages?: number[];
  /** where the next slice starts; null when the file is finished */
  next: IngestCursor | null;
  unit: "bytes" | "pages";
  total: number | null;
  /** progress after this slice, in `unit` */
  done: number;
}

/**
 * Runs one bounded slice of a document's ingestion. Exactly-once effect under redelivery:
 * the slice's rows are written in parts, each stored once (a marker commits with its rows),
 * while the document's progress stays at the slice's start; then the progress moves on by a
 * compare-and-set on where the message started (`slice-writes.ts`). A slice applied twice
 * stores its rows once, and one cut short is finished by the redelivered message. The next
 * message is sent after the progress moved; a crash in between is healed by the redelivered
 * message, which finds the progress ahead and re-sends the continuation (duplicates of it are
 * skipped the same way).
 */
export async function runIngestSlice(
  ctx: ProjectContext,
  message: IngestMessage,
  deps: IngestDeps,
): Promise<SliceOutcome> {
  const document = await loadDocument(ctx, message);
  if (!document || document.status === "failed") return "skipped";
  if (document.status === "ready") {
    // A redelivered last slice: its index message may be the part that was lost.
    await deps.enqueue(vectorIndexMessage(ctx.projectId, message.datasetId));
    return "skipped";
  }
  const position = message.cursor?.position ?? 0;
  const applied = document.progress?.done ?? 0;
  if (applied !== position) {
    if (applied > position && document.progress) {
      const { rows, resume } = document.progress;
      await deps.enqueue({
        ...message,
        cursor: { position: applied, rowsWritten: rows, ...resume },
      });
    }
    return "skipped";
  }

  const dataset = await requireDataset(ctx, message.datasetId);
  if (!document.storageKey) throw new ParseError("the document has no stored file to ingest");
  const slice = await readSlice(dataset, document, message.cursor, deps.source);
  // Each row's `chunk` continues the count of the rows the earlier slices wrote.
  const rowsBefore = message.cursor?.rowsWritten ?? 0;
  const rowsWritten = rowsBefore + slice.inputs.length;
  const key = {
    projectId: ctx.projectId,
    datasetId: document.datasetId,
    documentId: document.id,
    position,
  };
  const written = await writeSliceRows(
    ctx.db,
    dataset,
    document,
    key,
    slice.inputs.length,
    async (start, end) =>
      withPositions(
        await prepareRows(
          ctx,
          dataset,
          slice.inputs.slice(start, end),
          document.metadata as UserMetadata,
        ),
        rowsBefore + start,
        slice.pages?.slice(start, end),
      ),
  );
  const committed =
    written &&
    (await recordSliceProgress(ctx.db, key, slice.next ? "processing" : "ready", {
      unit: slice.unit,
      done: slice.done,
      total: slice.total,
      rows: rowsWritten,
      ...(slice.next?.columns
        ? { resume: { columns: slice.next.columns, delimiter: slice.next.delimiter } }
        : {}),
    }));
  if (!committed) return "skipped";
  if (!slice.next) {
    // The rows are searchable now (the backlog is ranked exactly); their graph comes next.
    if (rowsWritten > 0) await deps.enqueue(vectorIndexMessage(ctx.projectId, message.datasetId));
    return "done";
  }
  await deps.enqueue({ ...message, cursor: { ...slice.next, rowsWritten } });
  return "continued";
}

async function loadDocument(
  ctx: ProjectContext,
  message: IngestMessage,
): Promise<DocumentRecord | null> {
  return (await findDocument(ctx.db, message)) ?? null;
}

async function readSlice(
  dataset: DatasetRecord,
  document: DocumentRecord,
  cursor: IngestCursor | null,
  source: SourceReader,
): Promise<Slice> {
  const key = document.storageKey as string;
  const size = await source.size(key);
  if (size === null) throw new ParseError("the uploaded file is missing from storage");
  const head = await source.read(key, 0, Math.min(size, 512));
  const hints = { contentType: document.contentType, filename: document.filename, head };
  const kind = detectSourceKind(hints);
  if (!kind) {
    if (binaryContentRefusal(hints)) {
      throw new ParseError(
        "the file is binary data, not text and not a PDF, although its name or type says text; nothing was stored from it — upload a PDF, CSV, plain text, Markdown or HTML file",
        { reason: "not_text" },
      );
    }
    throw new ParseError(
      "this file type cannot be parsed; upload PDF, CSV, text, Markdown or HTML",
    );
  }
  const chunking = {
    chunkSize: document.chunkSize ?? 1000,
    chunkOverlap: document.chunkOverlap ?? 100,
  };
  const position = cursor?.position ?? 0;
  switch (kind) {
    case "csv":
      return csvSlice(dataset, { key, size, source }, cursor);
    case "pdf":
      return pdfSlice(dataset, { key, size, source }, position, chunking);
    default:
      return textSlice(dataset, document, kind, { key, size, source }, position, chunking);
  }
}

/** The stored file a slice reads: its key, its size in bytes and the reader. */
interface SliceFile {
  key: string;
  size: number;
  source: SourceReader;
}

async function csvSlice(
  dataset: DatasetRecord,
  file: SliceFile,
  cursor: IngestCursor | null,
): Promise<Slice> {
  const { key, size, source } = file;
  const position = cursor?.position ?? 0;
  let window: number = SLICE_LIMITS.csvBytes;
  for (;;) {
    const bytes = await source.read(key, position, window);
    rejectBinary(bytes, position);
    const atEnd = position + bytes.length >= size;
    const parsed = parseCsvWindow(bytes, position, atEnd, cursor?.columns, cursor?.delimiter);
    if (parsed) {
      const next = atEnd
        ? null
        : {
            position: parsed.end,
            rowsWritten: 0,
            columns: parsed.columns,
            delimiter: parsed.delimiter,
          };
      return {
        inputs: tableToRowInputs(dataset, parsed.records),
        next,
        unit: "bytes",
        total: size,
        done: parsed.end,
      };
    }
    if (window >= SLICE_LIMITS.csvMaxWindowBytes) {
      throw new ParseError(
        `a CSV record near byte ${position} is longer than ${SLICE_LIMITS.csvMaxWindowBytes / 1024 / 1024} MB (an unclosed quote?)`,
      );
    }
    window *= 2;
  }
}

async function pdfSlice(
  dataset: DatasetRecord,
  file: SliceFile,
  position: number,
  chunking: ChunkOptions,
): Promise<Slice> {
  const { key, size, source } = file;
  // pdf.js needs the whole file; the slice bound is on pages parsed, not bytes read.
  const bytes = await source.read(key, 0, size);
  const { pages, totalPages } = await pdfPageTexts(bytes, {
    firstPage: position + 1,
    maxPages: SLICE_LIMITS.pdfPages,
  });
  const done = Math.min(position + pages.length, totalPages);
  if (position === 0 && done >= totalPages && pages.every((page) => page.trim() === "")) {
    throw new ParseError(
      "the PDF has no text layer (scanned images?); run OCR and upload it again",
    );
  }
  const chunks = chunkPages(pages, position + 1, chunking);
  return {
    inputs: toInputs(
      dataset,
      chunks.map((c) => c.text),
    ),
    pages: chunks.map((c) => c.page),
    next: done < totalPages ? { position: done, rowsWritten: 0 } : null,
    unit: "pages",
    total: totalPages,
    done,
  };
}

async function textSlice(
  dataset: DatasetRecord,
  document: DocumentRecord,
  kind: ProseKind,
  file: SliceFile,
  position: number,
  chunking: ChunkOptions,
): Promise<Slice> {
  const { key, size, source } = file;
  const head = await source.read(key, 0, Math.min(size, 4096));
  const utf8 = kind !== "html" && isUtf8Prefix(head);
  if (!utf8) {
    // Decoded whole: HTML needs the full tree, and other encodings cannot be cut by bytes.
    if (size > SLICE_LIMITS.wholeFileBytes) {
      throw new ParseError(
        `${kind === "html" ? "HTML files" : "text files not in UTF-8"} are parsed whole, up to ${SLICE_LIMITS.wholeFileBytes / 1024 / 1024} MB; convert it to UTF-8 text first`,
      );
    }
    const bytes = await source.read(key, 0, size);
    rejectBinary(bytes, 0);
    const decoded = decodeText(bytes, { contentType: document.contentType, kind });
    const { text } = proseToText(kind, decoded);
    return {
      inputs: chunkInputs(dataset, text, chunking),
      next: null,
      unit: "bytes",
      total: size,
      done: size,
    };
  }
  const bytes = await source.read(key, position, SLICE_LIMITS.textBytes);
  rejectBinary(bytes, position);
  const atEnd = position + bytes.length >= size;
  const cut = atEnd ? bytes.length : lastCharBoundary(bytes);
  let text: string;
  try {
    // ignoreBOM keeps a BOM in the text, so that it is counted below, where it is dropped
    text = withoutNul(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, cut)),
    );
  } catch {
    throw new ParseError(`the file is not valid UTF-8 near byte ${position}; save it as UTF-8`);
  }
  // What opens the file and is not its text: a BOM, and Markdown's front matter (the rule
  // markdownToText applies to a fetched file). Counted, so the next slice starts where it should.
  let skipped = "";
  if (position === 0) {
    const body = kind === "markdown" ? splitFrontMatter(text).body : text.replace(/^\uFEFF/, "");
    skipped = text.slice(0, text.length - body.length);
    text = body;
  }
  const chunks = chunkText(text.replace(/\r\n?/g, "\n"), chunking);
  if (atEnd || chunks.length < 2) {
    const done = atEnd ? size : position + cut;
    return {
      inputs: toInputs(
        dataset,
        chunks.map((c) => c.text),
      ),
      next: atEnd ? null : { position: done, rowsWritten: 0 },
      unit: "bytes",
      total: size,
      done,
    };
  }
  // The last chunk may be cut by the window: the next slice starts where it starts.
  const last = chunks[chunks.length - 1]!;
  const consumed = new TextEncoder().encode(
    skipped + textPrefixBeforeNormalising(text, last.start),
  ).length;
  const next = position + consumed;
  return {
    inputs: toInputs(
      dataset,
      chunks.slice(0, -1).map((c) => c.text),
    ),
    next: { position: next, rowsWritten: 0 },
    unit: "bytes",
    total: size,
    done: next,
  };
}

/**
 * Maps an offset in the CRLF-normalised text back to the original text: every "\r\n"
 * removed before the offset is one character more in the original.
 */
function textPrefixBeforeNormalising(original: string, normalisedOffset: number): string {
  let seen = 0;
  let i = 0;
  while (i < original.length && seen < normalisedOffset) {
    if (original[i] === "\r" && original[i + 1] === "\n") i++;
    i++;
    seen++;
  }
  return original.slice(0, i);
}

function chunkInputs(dataset: DatasetRecord, text: string, chunking: ChunkOptions): RowInput[] {
  return toInputs(
    dataset,
    chunkText(text, chunking).map((c) => c.text),
  );
}

/** One row per chunk; `chunkText` never yields a blank chunk, so rows stay in step with pages. */
function toInputs(dataset: DatasetRecord, texts: string[]): RowInput[] {
  const column = embeddedColumn(dataset) ?? dataset.columns[0]?.name ?? "text";
  return texts.map((t) => ({ data: { [column]: t }, metadata: {} }));
}

/**
 * The kind was decided from the file's first bytes; a slice that turns binary further on
 * (text glued to an archive, a truncated download padded with zeros) fails the document
 * rather than storing garbage rows.
 */
function rejectBinary(bytes: Uint8Array, position: number): void {
  if (!isBinaryContent(bytes)) return;
  throw new ParseError(
    `the file holds binary data, not text, between bytes ${position} and ${position + bytes.length}: it is not the text file its name or type says; convert it to text, or upload the original PDF`,
    { reason: "not_text" },
  );
}

/** Whether the first bytes decode as UTF-8 (a multi-byte sequence cut at the end is fine). */
function isUtf8Prefix(bytes: Uint8Array): boolean {
  if (bytes[0] === 0xff || bytes[0] === 0xfe) return false; // UTF-16 BOM
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      bytes.subarray(0, lastCharBoundary(bytes)),
    );
    return true;
  } catch {
    return false;
  }
}

/** The largest cut ≤ length that does not split a UTF-8 sequence at the end of `bytes`. */
function lastCharBoundary(bytes: Uint8Array): number {
  const n = bytes.length;
  let lead = n - 1;
  while (lead >= 0 && lead > n - 4 && ((bytes[lead] as number) & 0xc0) === 0x80) lead--;
  if (lead < 0) return n;
  const b = bytes[lead] as number;
  const need = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  return lead + need <= n ? n : lead;
}
