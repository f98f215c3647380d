/**
 * Coalesces one isolate's requests for vector indexing. After a write, the first request for a
 * dataset sends its `index-vectors` message delayed by the window; writes inside the window
 * send none, because that message runs after them and indexes their rows too. A burst of 1,000
 * upserts thus sends a handful of messages instead of 1,000 — each no-op message still costs
 * the database a few statements, and on the embedded database they queued up after a bulk load
 * and slowed every search for minutes.
 */
export class VectorIndexRequests {
  readonly #due = new Map<string, number>();

  constructor(
    readonly windowSeconds = 5,
    private readonly now: () => number = () => Date.now(),
    private readonly maxEntries = 10_000,
  ) {}

  /** The delay to send the dataset's message with; null when one already sent covers it. */
  claim(datasetId: string): number | null {
    const now = this.now();
    const due = this.#due.get(datasetId);
    if (due !== undefined && due > now) return null;
    if (this.#due.size >= this.maxEntries) this.#forgetPast(now);
    this.#due.set(datasetId, now + this.windowSeconds * 1000);
    return this.windowSeconds;
  }

  /** A message that could not be sent covers nothing: the next write sends one. */
  release(datasetId: string): void {
    this.#due.delete(datasetId);
  }

  #forgetPast(now: number): void {
    for (const [datasetId, due] of this.#due) if (due <= now) this.#due.delete(datasetId);
  }
}
