import type { TextCorpus } from "../../harness/text-corpus.ts";

/**
 * A CSV of at least `bytes` bytes: `text` (embedded), `topic` (a declared metadata column)
 * and `n`, with quoted text so commas and quotes in prose stay inside their cell.
 */
export function generateCsv(
  corpus: TextCorpus,
  bytes: number,
  chars = 500,
): { data: Buffer; rows: number } {
  const parts: string[] = ["text,topic,n\n"];
  let size = parts[0]!.length;
  let rows = 0;
  while (size < bytes) {
    const { text, topic } = corpus.text(rows, chars);
    const line = `"${text.replace(/"/g, '""')}",${topic},${rows}\n`;
    parts.push(line);
    size += Buffer.byteLength(line);
    rows++;
  }
  return { data: Buffer.from(parts.join("")), rows };
}
