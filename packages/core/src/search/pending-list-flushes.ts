/**
 * When one isolate's writes have filled the GIN pending lists enough to empty them
 * (`flushPendingIndexEntries`) after the reply. Otherwise the writer whose insert takes a list
 * past `gin_pending_list_limit` (4 MB) empties it inside its own statement: under a stream of
 * 100-row E11 upserts of 500-character rows that was one request in 37, 30–50 ms slower each
 * time (native PostgreSQL). The `index-vectors` messages flush too, but only every few seconds
 * per dataset (`VectorIndexRequests`), and a single writer fills 4 MB in ~1.5 s.
 *
 * Counted in characters of stored text, which is what the keyword index's list grows with
 * (~2.2 bytes of pending entries a character of English prose), so the lists are emptied at
 * about 1 MB: a flush of ~20 ms that the next request does not wait for. Each isolate counts
 * its own writes; several writing at once fill the lists faster than any one counts, and the
 * writers' own flush remains the backstop.
 */
export class PendingListFlushes {
  #written = 0;

  constructor(readonly charactersPerFlush = DEFAULT_CHARACTERS_PER_FLUSH) {}

  /**
   * Counts `characters` of text written; true when the lists are due (the count restarts).
   * Never due with `charactersPerFlush` 0.
   */
  wrote(characters: number): boolean {
    if (this.charactersPerFlush <= 0) return false;
    this.#written += characters;
    if (this.#written < this.charactersPerFlush) return false;
    this.#written = 0;
    return true;
  }
}

/** ~1 MB of keyword entries pending, a quarter of the limit at which writers flush. */
export const DEFAULT_CHARACTERS_PER_FLUSH = 400_000;

/** The characters of text rows carry in their data: what their keyword entries grow with. */
export function textCharacters(rows: readonly { data?: Record<string, string> }[]): number {
  let characters = 0;
  for (const row of rows) {
    for (const value of Object.values(row.data ?? {})) characters += value.length;
  }
  return characters;
}
