/**
 * Counts of hashed features for one text: an open-addressing table over typed arrays that is
 * cleared and reused between texts, so counting allocates nothing per token.
 */
export class FeatureCounts {
  private keys: Uint32Array;
  private counts: Uint32Array;
  private weights: Float32Array;
  /** Slots in use, in insertion order: makes `clear` and iteration O(features), not O(capacity). */
  private used: Int32Array;
  private mask: number;
  size = 0;

  constructor(initialCapacity = 1024) {
    const capacity = 2 ** Math.ceil(Math.log2(Math.max(16, initialCapacity)));
    this.keys = new Uint32Array(capacity);
    this.counts = new Uint32Array(capacity);
    this.weights = new Float32Array(capacity);
    this.used = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Counts one occurrence of `key`; `weight` is kept from the first occurrence. */
  add(key: number, weight: number): void {
    // Grow at half load so linear probes stay short.
    if (this.size * 2 >= this.keys.length) this.grow();
    let slot = key & this.mask;
    while (this.counts[slot] !== 0) {
      if (this.keys[slot] === key) {
        this.counts[slot]! += 1;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
    this.keys[slot] = key;
    this.counts[slot] = 1;
    this.weights[slot] = weight;
    this.used[this.size++] = slot;
  }

  /** Calls `visit` once per distinct key with its count and weight. */
  forEach(visit: (key: number, count: number, weight: number) => void): void {
    for (let i = 0; i < this.size; i++) {
      const slot = this.used[i]!;
      visit(this.keys[slot]!, this.counts[slot]!, this.weights[slot]!);
    }
  }

  clear(): void {
    for (let i = 0; i < this.size; i++) this.counts[this.used[i]!] = 0;
    this.size = 0;
  }

  private grow(): void {
    const { keys, counts, weights, used, size } = this;
    const capacity = keys.length * 2;
    this.keys = new Uint32Array(capacity);
    this.counts = new Uint32Array(capacity);
    this.weights = new Float32Array(capacity);
    this.used = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.size = 0;
    for (let i = 0; i < size; i++) {
      const old = used[i]!;
      let slot = keys[old]! & this.mask;
      while (this.counts[slot] !== 0) slot = (slot + 1) & this.mask;
      this.keys[slot] = keys[old]!;
      this.counts[slot] = counts[old]!;
      this.weights[slot] = weights[old]!;
      this.used[this.size++] = slot;
    }
  }
}
