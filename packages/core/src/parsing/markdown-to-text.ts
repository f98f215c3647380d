import { normalizeLineBreaks, plainTextToText } from "./plain-text.ts";

export interface MarkdownText {
  /** front matter's `title:`, else the first `# Heading`; null when there is neither */
  title: string | null;
  text: string;
}

/**
 * Markdown is kept as Markdown: its markup is light, embedding models read it well, and
 * the chunker's paragraph boundaries are Markdown's own. Only two things change:
 *
 * - Line breaks are normalised, as for plain text.
 * - A leading front matter block (`splitFrontMatter`) is removed: it is metadata for a site
 *   generator, not prose, and its `key: value` lines would otherwise become the document's
 *   first chunk. Its `title:` becomes the title.
 */
export function markdownToText(markdown: string): MarkdownText {
  const { frontMatter, body } = splitFrontMatter(normalizeLineBreaks(markdown));
  const title = (frontMatter === null ? null : frontMatterTitle(frontMatter)) ?? firstHeading(body);
  return { title, text: plainTextToText(body) };
}

export interface SplitMarkdown {
  /** the lines between the fences; null when the file has no front matter */
  frontMatter: string | null;
  /** the rest, exactly as written: `body` is a suffix of the input */
  body: string;
}

/**
 * A leading front matter block — YAML between `---` lines or TOML between `+++` lines, after
 * an optional byte order mark — and the Markdown after it. Line breaks may be LF, CRLF or CR
 * and are left as they are, so the ingest worker can count the bytes it skipped in an
 * uploaded file's first slice (ingest-slice.ts): one rule for fetched and uploaded Markdown.
 */
export function splitFrontMatter(markdown: string): SplitMarkdown {
  const source = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  const match = FRONT_MATTER.exec(source);
  if (!match) return { frontMatter: null, body: source };
  return { frontMatter: match[2]!, body: source.slice(match[0].length) };
}

/**
 * The fence must open the very first line and close on a line of its own; an unclosed fence
 * is a horizontal rule followed by text, not front matter. The block is matched lazily up to
 * the first closing fence, line by line, and each line break can be read only one way
 * (`\r(?!\n)`), so a failed match does not backtrack: the match is linear.
 */
const FRONT_MATTER =
  /^(---|\+\+\+)[ \t]*(?:\r\n|\r(?!\n)|\n)((?:[^\r\n]*(?:\r\n|\r(?!\n)|\n))*?)\1[ \t]*(?:\r\n|\r(?!\n)|\n|$)/;

function frontMatterTitle(block: string): string | null {
  const match = /^title[ \t]*[:=][ \t]*(.*)$/m.exec(block);
  if (!match) return null;
  const value = match[1]!
    .trim()
    .replace(/^(["'])(.*)\1$/, "$2")
    .trim();
  return value === "" ? null : value;
}

/** The first ATX level-1 heading outside a fenced code block. */
function firstHeading(body: string): string | null {
  let fence: string | null = null;
  for (const line of body.split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker[0]!;
      else if (marker[0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const opening = /^ {0,3}#[ \t]+/.exec(line);
    if (!opening) continue;
    const heading = withoutClosingHashes(line.slice(opening[0].length).trim());
    if (heading !== "") return heading;
  }
  return null;
}

/** "Title ##" → "Title" (by hand: a regular expression for it backtracks on long lines). */
function withoutClosingHashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x23 /* # */) end--;
  if (end === text.length) return text;
  if (end === 0) return "";
  const before = text.charCodeAt(end - 1);
  return before === 0x20 || before === 0x09 ? text.slice(0, end).trimEnd() : text;
}
