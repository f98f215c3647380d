import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPlatformProxy } from "wrangler";
import { PART_SIZE, R2FileWriter } from "../src/upload/r2-writer.ts";

/**
 * The R2 writer against miniflare's real R2 (wrangler's platform proxy, in memory): the
 * multipart rules — equal parts of at least 5 MiB but the last — are R2's, not a mock's.
 */

let dir: string;
let bucket: R2Bucket;
let dispose: () => Promise<void>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "quarry-r2-"));
  const config = join(dir, "wrangler.toml");
  await writeFile(
    config,
    'name = "r2-writer-test"\ncompatibility_date = "2026-04-01"\n[[r2_buckets]]\nbinding = "FILES"\nbucket_name = "files"\n',
  );
  const proxy = await getPlatformProxy<{ FILES: R2Bucket }>({ configPath: config, persist: false });
  bucket = proxy.env.FILES;
  dispose = proxy.dispose;
});
afterAll(async () => {
  await dispose?.();
  await rm(dir, { recursive: true, force: true });
});

/** Deterministic bytes, written in chunks of varying size as a network would deliver them. */
async function writeBytes(writer: R2FileWriter, total: number): Promise<string> {
  const hash = createHash("sha256");
  const sizes = [1, 7, 65_536, 4093, 300_000, 16_384];
  let written = 0;
  for (let i = 0; written < total; i++) {
    const n = Math.min(sizes[i % sizes.length]!, total - written);
    const chunk = new Uint8Array(n);
    for (let j = 0; j < n; j++) chunk[j] = (written + j) % 251;
    hash.update(chunk);
    await writer.write(chunk);
    written += n;
  }
  return hash.digest("hex");
}

async function storedHash(key: string): Promise<{ size: number; sha256: string } | null> {
  const object = await bucket.get(key);
  if (!object) return null;
  const bytes = new Uint8Array(await object.arrayBuffer());
  return { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}

describe("R2 file writer", () => {
  it("stores a small file with one put, with its content type", async () => {
    const writer = new R2FileWriter(bucket, "ds/doc/small.txt", {
      httpMetadata: { contentType: "text/plain" },
    });
    const sha256 = await writeBytes(writer, 10_000);
    const object = await writer.finish();
    expect(object.size).toBe(10_000);
    expect(await storedHash("ds/doc/small.txt")).toEqual({ size: 10_000, sha256 });
    expect((await bucket.head("ds/doc/small.txt"))?.httpMetadata?.contentType).toBe("text/plain");
  });

  it("stores files of one part, one part plus a byte and several parts intact", async () => {
    for (const size of [PART_SIZE, PART_SIZE + 1, 2 * PART_SIZE, 2 * PART_SIZE + 12_345]) {
      const key = `ds/doc/${size}.bin`;
      const writer = new R2FileWriter(bucket, key);
      const sha256 = await writeBytes(writer, size);
      expect(writer.size).toBe(size);
      await writer.finish();
      expect(await storedHash(key), `size ${size}`).toEqual({ size, sha256 });
    }
  });

  it("leaves nothing behind when discarded mid-upload or after finishing", async () => {
    const aborted = new R2FileWriter(bucket, "ds/doc/aborted.bin");
    await writeBytes(aborted, PART_SIZE + 100); // one part already sent
    await aborted.discard();
    expect(await bucket.head("ds/doc/aborted.bin")).toBeNull();

    const finished = new R2FileWriter(bucket, "ds/doc/finished.bin");
    await writeBytes(finished, 500);
    await finished.finish();
    await finished.discard();
    expect(await bucket.head("ds/doc/finished.bin")).toBeNull();
  });

  it("does not delete an object another writer has stored since under the same key", async () => {
    const first = new R2FileWriter(bucket, "ds/doc/shared.txt");
    await writeBytes(first, 100);
    await first.finish();
    const second = new R2FileWriter(bucket, "ds/doc/shared.txt");
    const sha256 = await writeBytes(second, 200);
    await second.finish();
    await first.discard();
    expect(await storedHash("ds/doc/shared.txt")).toEqual({ size: 200, sha256 });
  });
});
