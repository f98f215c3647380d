/**
 * Writes a file of unknown length to R2 while holding at most one part in memory.
 *
 * Why multipart and not a FixedLengthStream: R2's `put` needs the length up front, and
 * inside multipart/form-data the file's length is unknown until its closing boundary (the
 * request's Content-Length also counts the other fields and the framing, and is absent
 * from chunked uploads). A multipart upload takes parts of a fixed size as they fill: R2
 * wants every part but the last to be the same size, at least 5 MiB. So the memory bound
 * is one 5 MiB part per upload, whatever the file's size (100 MiB is 20 parts). A file
 * smaller than one part — most uploads — is a single `put` of the buffered bytes.
 */
export const PART_SIZE = 5 * 1024 * 1024;

export class R2FileWriter {
  private part: Uint8Array | null = null;
  private filled = 0;
  private upload: R2MultipartUpload | null = null;
  private readonly uploaded: R2UploadedPart[] = [];
  private stored: R2Object | null = null;
  private bytes = 0;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly options: { httpMetadata?: R2HTTPMetadata } = {},
  ) {}

  /** Bytes written so far. */
  get size(): number {
    return this.bytes;
  }

  async write(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      // A full part is sent only when more bytes follow, so that a file of exactly one
      // part is still a single `put`.
      if (this.filled === PART_SIZE) await this.sendPart();
      this.part ??= new Uint8Array(PART_SIZE);
      const n = Math.min(PART_SIZE - this.filled, chunk.length - offset);
      this.part.set(chunk.subarray(offset, offset + n), this.filled);
      this.filled += n;
      offset += n;
    }
    this.bytes += chunk.length;
  }

  /** Stores what is buffered and completes the object. */
  async finish(): Promise<R2Object> {
    const rest = this.part?.subarray(0, this.filled) ?? new Uint8Array(0);
    if (this.upload === null) {
      this.stored = await this.bucket.put(this.key, rest, this.options);
    } else {
      if (rest.length > 0) await this.sendPart(rest);
      this.stored = await this.upload.complete(this.uploaded);
      this.upload = null;
    }
    this.part = null;
    return this.stored;
  }

  /**
   * Leaves nothing behind: aborts an unfinished multipart upload, or deletes the object
   * this writer completed — only while it is still this writer's version, so a refused
   * duplicate never deletes the file a concurrent request stored under the same key.
   */
  async discard(): Promise<void> {
    this.part = null;
    const upload = this.upload;
    this.upload = null;
    if (upload) await upload.abort().catch(() => {});
    const stored = this.stored;
    this.stored = null;
    if (stored) {
      const current = await this.bucket.head(this.key);
      if (current?.version === stored.version) await this.bucket.delete(this.key);
    }
  }

  private async sendPart(bytes: Uint8Array = this.part!): Promise<void> {
    this.upload ??= await this.bucket.createMultipartUpload(this.key, this.options);
    this.uploaded.push(await this.upload.uploadPart(this.uploaded.length + 1, bytes));
    // The part buffer is reused: R2 has the bytes once uploadPart resolves.
    this.filled = 0;
  }
}

/**
 * Moves an object to another key: a streamed copy (FixedLengthStream, as `put` needs the
 * length) and a delete. Used only when the document id arrived after the file part, so
 * the file had to be stored under a provisional key.
 */
export async function moveObject(bucket: R2Bucket, from: string, to: string): Promise<R2Object> {
  const source = await bucket.get(from);
  if (!source) throw new Error(`uploaded file '${from}' disappeared before it could be moved`);
  const { readable, writable } = new FixedLengthStream(source.size);
  const [, moved] = await Promise.all([
    source.body.pipeTo(writable),
    bucket.put(to, readable, { httpMetadata: source.httpMetadata }),
  ]);
  await bucket.delete(from);
  return moved;
}
