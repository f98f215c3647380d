import type { FileStore } from "@quarry/core";

/** The domain's FileStore on R2. Listing is paged (1,000 keys a call); deletes are batched. */
export function r2FileStore(bucket: R2Bucket): FileStore {
  return {
    async put(key, bytes, contentType) {
      await bucket.put(key, bytes, contentType ? { httpMetadata: { contentType } } : undefined);
    },
    async delete(key) {
      await bucket.delete(key);
    },
    async deletePrefix(prefix) {
      let cursor: string | undefined;
      do {
        const page = await bucket.list({ prefix, cursor, limit: 1000 });
        if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
    },
  };
}
