import { BUNDLED_CMAPS } from "./bundled-cmaps.ts";

/**
 * Character maps for CJK PDFs, served to pdf.js from the bundle.
 *
 * A PDF font may name a predefined CMap (`/Encoding /UniJIS-UCS2-H`) instead of embedding its
 * encoding. pdf.js then needs that CMap (code → CID) and its collection's `Adobe-*-UCS2`
 * (CID → Unicode) to know what the text says. pdf.js loads them through a
 * `BinaryDataFactory`: by default from a URL (`cMapUrl`) or, in Node, from the pdfjs-dist
 * package on disk. A Worker has neither a filesystem nor, reliably, a URL to fetch from, so
 * the CMaps travel in the bundle (bundled-cmaps.ts, a chosen subset; see its generator) and
 * this factory hands them over. The same path runs in Node, so tests exercise it.
 */
export function bundledCMapFactory(missing: Set<string>): BinaryDataFactoryClass {
  // pdf.js constructs the factory with its URL options, which are not needed here.
  return class BundledBinaryDataFactory {
    async fetch({ kind, filename }: { kind: string; filename: string }): Promise<Uint8Array> {
      if (kind === "cMapUrl") {
        const name = filename.endsWith(".bcmap") ? filename.slice(0, -".bcmap".length) : filename;
        const data = bundledCMap(name);
        if (data) return data;
        missing.add(name);
      }
      // Standard fonts and wasm decoders only matter for rendering; pdf.js falls back.
      throw new Error(`${kind} "${filename}" is not bundled`);
    }
  };
}

export type BinaryDataFactoryClass = new (
  options: unknown,
) => { fetch(request: { kind: string; filename: string }): Promise<Uint8Array> };

const decoded = new Map<string, Uint8Array>();

/** The packed CMap of that name, or null when it is not in the bundle. */
export function bundledCMap(name: string): Uint8Array | null {
  const cached = decoded.get(name);
  if (cached) return cached.slice();
  if (!Object.hasOwn(BUNDLED_CMAPS, name)) return null;
  const binary = atob(BUNDLED_CMAPS[name]!);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  decoded.set(name, bytes);
  // A copy: pdf.js may transfer the buffer it is given to its (in-process) worker.
  return bytes.slice();
}

export function bundledCMapNames(): string[] {
  return Object.keys(BUNDLED_CMAPS);
}
