// 32-bit FNV-1a over UTF-16 code units, finished with murmur3's fmix32. FNV-1a alone mixes
// its last characters poorly into the high bits, and we take the sign from the top bit and the
// bucket from the rest; fmix32 makes every output bit depend on every input bit.

const FNV_PRIME = 0x01000193;

/** FNV-1a state after `code`. Start from a seed; finish with `fmix32`. */
export function fnvStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME);
}

export function fmix32(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of `text[start, end)`, without slicing it out. */
export function hashRange(text: string, start: number, end: number, seed: number): number {
  let h = seed;
  for (let i = start; i < end; i++) h = fnvStep(h, text.charCodeAt(i));
  return fmix32(h);
}
