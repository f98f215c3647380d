import { QUERY_SAMPLES } from "./query-samples.ts";

/**
 * Spaces one isolate's query samples: at most one per dataset per `spacingMs`, so that a
 * dataset searched hundreds of times a second writes a few samples a second, not hundreds.
 */
export class QuerySampleGate {
  readonly #last = new Map<string, number>();

  constructor(
    readonly spacingMs: number = QUERY_SAMPLES.spacingMs,
    private readonly now: () => number = () => Date.now(),
    private readonly maxEntries = 10_000,
  ) {}

  /** Whether a search of the dataset may record its query now; if so, the next must wait. */
  claim(datasetId: string): boolean {
    const now = this.now();
    const last = this.#last.get(datasetId);
    if (last !== undefined && now - last < this.spacingMs) return false;
    if (this.#last.size >= this.maxEntries) this.#forgetPast(now);
    this.#last.set(datasetId, now);
    return true;
  }

  #forgetPast(now: number): void {
    for (const [datasetId, last] of this.#last) {
      if (now - last >= this.spacingMs) this.#last.delete(datasetId);
    }
  }
}
