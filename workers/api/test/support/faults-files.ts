/**
 * Upload files whose rows are known exactly, for the fault suite (hardening-faults.test.ts):
 * every expected row is unique and tagged, so a stored row that is missing, duplicated or
 * foreign shows up in a plain comparison.
 */
export interface KnownFile {
  filename: string;
  type: string;
  data: Uint8Array;
  /** form fields of the upload (chunking) */
  fields: Record<string, string>;
  /** the embedded text of every row the file must produce, in order */
  rows: string[];
}

const WORDS =
  "tide moon harbour granite lantern orchard meadow cinder falcon willow ember quartz river summit canyon glacier thistle cobalt saffron marble beacon pylon drift hollow kestrel juniper basalt fjord mosaic prism".split(
    " ",
  );

/** A seeded word stream: the same (seed) gives the same words on every run. */
function words(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return WORDS[state % WORDS.length] as string;
  };
}

/** `length` characters of sentences (no line breaks), starting with `tag`. */
function prose(tag: string, length: number, seed: number): string {
  const next = words(seed);
  let text = `${tag}:`;
  let sentence = 0;
  while (text.length < length) {
    text += ` ${next()}`;
    if (++sentence % 9 === 0) text += ".";
  }
  return text.slice(0, length).trimEnd();
}

/**
 * A text file of paragraphs each between 55% and 95% of `chunkSize`, separated by blank
 * lines, uploaded with `chunk_overlap` 0: every paragraph is exactly one row (a chunk ends
 * at the last paragraph break in the second half of its window), also across the ingest
 * worker's 1 MB slices, which restart at the start of the chunk they cut. `bytes` sets the
 * size; over 1 MB the file takes more than one slice.
 */
export function paragraphFile(tag: string, bytes: number, chunkSize: number): KnownFile {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const span = Math.floor(chunkSize * 0.4);
    const length = Math.floor(chunkSize * 0.55) + ((i * 7919) % span);
    const paragraph = prose(`${tag} paragraph ${i}`, length, i + 1);
    rows.push(paragraph);
    size += paragraph.length + 2;
  }
  return {
    filename: `${tag}.txt`,
    type: "text/plain",
    data: new TextEncoder().encode(`${rows.join("\n\n")}\n`),
    fields: { chunk_size: String(chunkSize), chunk_overlap: "0" },
    rows,
  };
}

/**
 * A CSV (`text` embedded, `n` a data column) of `records` rows of `cellChars` characters of
 * text each; over 2 MB it takes more than one slice.
 */
export function numberedCsv(tag: string, records: number, cellChars: number): KnownFile {
  const rows = Array.from({ length: records }, (_, n) => prose(`${tag} row ${n}`, cellChars, n));
  const lines = rows.map((text, n) => `"${text.replaceAll('"', '""')}",${n}`);
  return {
    filename: `${tag}.csv`,
    type: "text/csv",
    data: new TextEncoder().encode(`text,n\r\n${lines.join("\r\n")}\r\n`),
    fields: {},
    rows,
  };
}
