/**
 * File names as one safe path segment: uploaded and fetched names end up in storage keys
 * and in download headers.
 */

export const MAX_FILENAME_LENGTH = 200;

/** A name that is safe as one path segment, or null when nothing usable is left. */
export function sanitizeFilename(raw: string): string | null {
  // Only the last segment: a name like "../../etc/passwd" or "C:\\x\\y.pdf" keeps its basename.
  const base = raw.split(/[/\\]/).pop() ?? "";
  const cleaned = base
    .normalize("NFC")
    // C0/C1 controls, DEL, and bidirectional overrides that make a name display as another.
    .replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, "")
    .replace(/[<>:"|?*]/g, "_")
    .trim()
    .replace(/^\.+/, "")
    .replace(/[. ]+$/, "");
  if (cleaned === "") return null;
  return truncate(cleaned, MAX_FILENAME_LENGTH);
}

/** Keeps the extension when a name is too long; never splits a surrogate pair. */
function truncate(name: string, max: number): string {
  const chars = Array.from(name);
  if (chars.length <= max) return name;
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? Array.from(name.slice(dot)) : [];
  if (extension.length > 0 && extension.length <= 16) {
    const stem = Array.from(name.slice(0, dot)).slice(0, max - extension.length);
    return stem.join("") + extension.join("");
  }
  return chars.slice(0, max).join("");
}
