import type { SourceReader } from "@quarry/core";

/** Ranged reads of stored sources from R2, so a slice reads only its window. */
export function r2SourceReader(bucket: R2Bucket): SourceReader {
  return {
    async size(key) {
      const head = await bucket.head(key);
      return head ? head.size : null;
    },
    async read(key, offset, length) {
      if (length <= 0) return new Uint8Array(0);
      const object = await bucket.get(key, { range: { offset, length } });
      if (!object) throw new Error(`stored file '${key}' disappeared while it was being read`);
      return new Uint8Array(await object.arrayBuffer());
    },
  };
}
