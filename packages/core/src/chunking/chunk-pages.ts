import { type ChunkOptions, chunkText } from "./chunk-text.ts";

export interface PageChunk {
  text: string;
  /** 1-based number of the page the chunk's text starts on */
  page: number;
}

/** What separates two pages' text in the chunked whole: a paragraph break. */
const PAGE_SEPARATOR = "\n\n";

/**
 * Chunks consecutive pages as one text (a chunk may run across a page break, as the prose
 * does) and tells each chunk the page its text starts on: the page holding its first
 * non-space character, so a chunk whose window opens on the break between two pages belongs
 * to the page its words come from. `firstPage` is the number of `pages[0]`.
 */
export function chunkPages(
  pages: readonly string[],
  firstPage: number,
  options: ChunkOptions,
): PageChunk[] {
  const starts: number[] = [];
  let offset = 0;
  for (const page of pages) {
    starts.push(offset);
    offset += page.length + PAGE_SEPARATOR.length;
  }
  const text = pages.join(PAGE_SEPARATOR);
  return chunkText(text, options).map((chunk) => {
    const window = text.slice(chunk.start, chunk.end);
    const first = chunk.start + (window.length - window.trimStart().length);
    return { text: chunk.text, page: firstPage + pageAt(starts, first) };
  });
}

/** Index of the last page starting at or before `offset` (binary search over `starts`). */
function pageAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}
