/**
 * Text without NUL characters. Postgres cannot store U+0000 in `text` or `jsonb` (the write
 * fails), and in a text file a NUL means nothing, so every decoder removes them before the
 * text can reach a row.
 */
export function withoutNul(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "") : text;
}
