import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/** One apt source entry, in either syntax (one-line `sources.list` or deb822 `.sources`). */
export interface AptSourceEntry {
  types: string[];
  uris: string[];
  suites: string[];
  components: string[];
}

/** A source file's path (its extension decides the syntax, as it does for apt) and its text. */
export interface AptSourceFile {
  path: string;
  text: string;
}

/**
 * The entries of one apt source file. `.sources` files are deb822 stanzas; anything else is
 * the one-line format. Disabled stanzas (`Enabled: no`) and comments are left out.
 */
export function parseAptSourceFile(file: AptSourceFile): AptSourceEntry[] {
  return file.path.endsWith(".sources")
    ? parseDeb822Sources(file.text)
    : parseOneLineSources(file.text);
}

/** Debian's suite aliases: sources may name the release by one of these instead of its codename. */
const DEBIAN_SUITE_ALIASES = ["oldstable", "stable", "testing", "unstable"];

/**
 * The address of the machine's Debian archive: the first enabled binary (`deb`) entry of the
 * machine's own release (`bookworm`, or an alias such as `stable`; not `bookworm-security` or
 * `bookworm-updates`, and not a third-party repository's suite) with the `main` component.
 * The address is kept as written (it may be a `mirror+file:` list), so the source entry we add
 * reaches the archive through the mirror the machine already uses.
 */
export function mainArchiveAddress(
  files: readonly AptSourceFile[],
  releaseCodename: string,
): string | null {
  const releaseSuites = new Set([releaseCodename, ...DEBIAN_SUITE_ALIASES]);
  for (const file of files) {
    for (const entry of parseAptSourceFile(file)) {
      const isRelease = entry.suites.some((suite) => releaseSuites.has(suite));
      if (!entry.types.includes("deb") || !isRelease || !entry.components.includes("main")) {
        continue;
      }
      const address = entry.uris.find((uri) => !uri.startsWith("cdrom:"));
      if (address) return address.replace(/\/+$/, "");
    }
  }
  return null;
}

/** The machine's apt source files, in the order apt reads them. */
export async function readAptSourceFiles(aptDir = "/etc/apt"): Promise<AptSourceFile[]> {
  const paths = [join(aptDir, "sources.list")];
  const partsDir = join(aptDir, "sources.list.d");
  const parts = await readdir(partsDir).catch(() => [] as string[]);
  // apt ignores other extensions (`.list.disabled`, `.save`, …): so do we.
  for (const name of parts.sort()) {
    if (name.endsWith(".list") || name.endsWith(".sources")) paths.push(join(partsDir, name));
  }
  const files: AptSourceFile[] = [];
  for (const path of paths) {
    const text = await readFile(path, "utf8").catch(() => null);
    if (text !== null) files.push({ path, text });
  }
  return files;
}

function parseOneLineSources(text: string): AptSourceEntry[] {
  const entries: AptSourceEntry[] = [];
  for (const rawLine of text.split("\n")) {
    // `[ options ]` may contain spaces, so drop it before splitting the rest into words.
    const line = withoutComment(rawLine)
      .replace(/\[[^\]]*\]/, " ")
      .trim();
    const [type, uri, suite, ...components] = line.split(/\s+/);
    if (!type || !uri || !suite || (type !== "deb" && type !== "deb-src")) continue;
    entries.push({ types: [type], uris: [uri], suites: [suite], components });
  }
  return entries;
}

function parseDeb822Sources(text: string): AptSourceEntry[] {
  const entries: AptSourceEntry[] = [];
  for (const stanza of deb822Stanzas(text)) {
    if (/^(no|false|0)$/i.test(stanza.get("enabled") ?? "yes")) continue;
    const words = (field: string) => (stanza.get(field) ?? "").split(/\s+/).filter(Boolean);
    entries.push({
      types: words("types"),
      uris: words("uris"),
      suites: words("suites"),
      components: words("components"),
    });
  }
  return entries;
}

/** Stanzas as maps of lower-cased field name to value (continuation lines joined). */
function deb822Stanzas(text: string): Map<string, string>[] {
  const stanzas: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let lastField: string | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    if (line.trim() === "") {
      if (current.size > 0) stanzas.push(current);
      current = new Map();
      lastField = null;
      continue;
    }
    if (/^[ \t]/.test(line)) {
      // A continuation line (e.g. an inline Signed-By key) belongs to the previous field.
      if (lastField) current.set(lastField, `${current.get(lastField)} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    lastField = line.slice(0, colon).trim().toLowerCase();
    current.set(lastField, line.slice(colon + 1).trim());
  }
  if (current.size > 0) stanzas.push(current);
  return stanzas;
}

function withoutComment(line: string): string {
  const hash = line.indexOf("#");
  return hash < 0 ? line : line.slice(0, hash);
}
