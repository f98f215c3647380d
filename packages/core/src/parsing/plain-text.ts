/**
 * Plain text as it should be stored: line breaks normalised to "\n" (a CRLF file and its LF
 * copy must chunk and hash the same), nothing else touched — indentation and blank lines
 * carry meaning in logs, code and poetry. Leading and trailing blank lines are dropped.
 */
export function plainTextToText(text: string): string {
  return normalizeLineBreaks(text)
    .replace(/^(?:[ \t]*\n)+/, "")
    .trimEnd();
}

/** CRLF and lone CR (classic Mac) to LF. */
export function normalizeLineBreaks(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}
