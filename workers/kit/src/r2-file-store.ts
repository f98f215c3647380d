import type { FileOpener, FileStore } from "@quarry/core";

/** The domain's FileStore on R2. Listing is paged (1,000 keys a call); deletes are batched. */
export function r2FileStore(bucket: R2Bucket): FileStore & FileOpener {
  return {
    async put(key, bytes, contentType) {
      await bucket.put(key, bytes, contentType ? { httpMetadata: { contentType } } : undefined);
    },
    async open(key) {
      const object = await bucket.get(key);
      if (!object) return null;
      return {
        body: object.body,
        size: object.size,
        contentType: object.httpMetadata?.contentType ?? null,
      };
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
