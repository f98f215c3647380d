import { BadRequestError } from "../shared/errors.ts";

export interface ChunkOptions {
  chunkSize: number;
  chunkOverlap: number;
}

export interface Chunk {
  text: string;
  /** offsets into the input: `input.slice(start, end) === text` */
  start: number;
  end: number;
}

export const DEFAULT_CHUNK_SIZE = 1000;
export const DEFAULT_CHUNK_OVERLAP = 100;
export const MAX_CHUNK_SIZE = { hybrid: 2000, standard: 5000 } as const;

/** Where a chunk may end, best first; each is tried only in the later part of the window. */
const BOUNDARIES: { pattern: RegExp; minFraction: number }[] = [
  { pattern: /\n[ \t]*\n\s*/g, minFraction: 0.5 }, // paragraph
  { pattern: /[.!?…。！？][)"'’”]*\s+|[。！？]/g, minFraction: 0.5 }, // sentence
  { pattern: /\n/g, minFraction: 0.5 }, // line
  { pattern: /\s+/g, minFraction: 0 }, // word
];

export function validateChunkOptions(
  options: Partial<ChunkOptions>,
  kind: keyof typeof MAX_CHUNK_SIZE,
  paths = { size: "chunk_size", overlap: "chunk_overlap" },
): ChunkOptions {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
  const max = MAX_CHUNK_SIZE[kind];
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > max) {
    throw new BadRequestError(
      `must be an integer from 1 to ${max} for ${kind} datasets`,
      paths.size,
    );
  }
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw new BadRequestError("must be an integer from 0 to chunk_size - 1", paths.overlap);
  }
  return { chunkSize, chunkOverlap };
}

/**
 * Splits text into chunks of at most `chunkSize` characters (UTF-16 code units; a
 * surrogate pair is never split unless `chunkSize` is 1) that together cover the whole input, consecutive chunks
 * sharing up to `chunkOverlap` characters. A chunk ends at the last paragraph break in the
 * window if there is one in its second half, else a sentence end, else a line break, else a
 * space, else at the size limit. Whitespace-only chunks are dropped; chunk text is trimmed of
 * surrounding whitespace (offsets still describe the untrimmed window).
 */
export function chunkText(input: string, options: ChunkOptions): Chunk[] {
  const { chunkSize, chunkOverlap } = options;
  const chunks: Chunk[] = [];
  let start = 0;
  while (start < input.length) {
    let end = Math.min(start + chunkSize, input.length);
    if (end < input.length) end = bestEnd(input, start, end, chunkOverlap);
    const text = input.slice(start, end).trim();
    if (text.length > 0) chunks.push({ text, start, end });
    if (end >= input.length) break;
    start = nextStart(input, start, end, chunkOverlap);
  }
  return chunks;
}

function bestEnd(input: string, start: number, limit: number, overlap: number): number {
  const window = input.slice(start, limit);
  for (const { pattern, minFraction } of BOUNDARIES) {
    // A boundary must leave the next chunk room to start after this one's start.
    const earliest = Math.max(Math.floor(window.length * minFraction), overlap + 1);
    let found = -1;
    for (const match of window.matchAll(pattern)) {
      const after = match.index + match[0].length;
      if (after >= earliest && after <= window.length) found = after;
    }
    if (found > 0) return start + found;
  }
  return isInsidePair(input, limit) && limit - 1 > start ? limit - 1 : limit;
}

/** The overlap starts at a word start when one is in reach, and always moves forward. */
function nextStart(input: string, start: number, end: number, overlap: number): number {
  let next = Math.max(end - overlap, start + 1);
  if (overlap > 0) {
    const region = input.slice(next, end);
    const space = region.search(/\s\S/);
    if (space >= 0 && next + space + 1 < end) next += space + 1;
  }
  return isInsidePair(input, next) && next < end ? next + 1 : next;
}

/** True when `at` falls between the two halves of a surrogate pair. */
function isInsidePair(input: string, at: number): boolean {
  const before = input.charCodeAt(at - 1);
  const after = input.charCodeAt(at);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}
