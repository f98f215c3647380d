// The echo model's tokenizer: a word (a run of letters, digits and marks) or a single other
// visible character is one token. Not any real model's tokenizer, but deterministic, free and
// close enough to make token counts and length limits behave plausibly offline.
const TOKEN = /[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu;

export function countTokens(text: string): number {
  let count = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.test(text)) count++;
  return count;
}

/** The shortest prefix of `text` that holds its first `max` tokens, or all of it. */
export function truncateToTokens(text: string, max: number): { text: string; truncated: boolean } {
  let count = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.test(text)) {
    if (++count === max) {
      const end = TOKEN.lastIndex;
      // Only truncated if another token follows; trailing whitespace alone is not output.
      if (!TOKEN.test(text)) break;
      return { text: text.slice(0, end), truncated: true };
    }
  }
  return { text, truncated: false };
}
