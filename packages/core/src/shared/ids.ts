const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * The one id function. Ids are a short type prefix and 20 random base-36 characters
 * (~103 bits): readable in logs, unguessable, and the prefix says what the id names.
 */
export function newId(prefix: "proj" | "key" | "ds" | "ep" | "cmt"): string {
  return `${prefix}_${randomString(20)}`;
}

/** Document and log ids are v4 UUIDs, as E9 generates for uploads (docs/api.md#e9-upload). */
export function newUuid(): string {
  return crypto.randomUUID();
}

export function randomString(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return out;
}
