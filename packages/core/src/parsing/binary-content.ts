/**
 * The signature every PDF starts with. pdf.js also finds a header later in the first KB; a
 * file that starts with it is a PDF whatever its name or Content-Type say.
 */
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

export function startsWithPdfMagic(bytes: Uint8Array): boolean {
  return PDF_MAGIC.every((byte, i) => bytes[i] === byte);
}

/**
 * Whether bytes are binary data rather than text — decided from the bytes, before a file name
 * or a Content-Type is believed, so that an archive or an image renamed `.txt` never becomes
 * rows of garbage. Text may carry a stray NUL (some exporters leave one; the decoders drop it)
 * and the odd control character; binary formats carry NULs by the dozen (headers, tables,
 * padding) or, compressed, control bytes at random (about 1 byte in 10). So: more than 1 % NULs
 * or more than 5 % other C0 controls (tab, line breaks, form feed and escape are text) is
 * binary, with a floor of two of each so that a few bytes of text with one NUL stay text.
 * UTF-16 text pairs each ASCII character with a zero byte: with a byte order mark, or with the
 * zeros all on one side of the pairs, it is text.
 */
export function isBinaryContent(bytes: Uint8Array): boolean {
  if (bytes.length === 0 || looksLikeUtf16(bytes)) return false;
  let nul = 0;
  let control = 0;
  for (const byte of bytes) {
    if (byte === 0) nul++;
    else if (byte < 0x20 && !TEXT_CONTROLS.has(byte)) control++;
  }
  return nul > Math.max(2, bytes.length / 100) || control > Math.max(2, bytes.length / 20);
}

/** tab, line feed, vertical tab, form feed, carriage return, escape (ANSI colours) */
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b]);

function looksLikeUtf16(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return true;
  }
  // Without a BOM (Excel's "Unicode text"): zeros in one half of the byte pairs only. A window
  // that starts at an odd offset only swaps the halves, so either side will do.
  const end = Math.min(bytes.length, 4096);
  if (end < 8) return false;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < end; i++) {
    if (bytes[i] !== 0) continue;
    if (i % 2 === 0) evenZeros++;
    else oddZeros++;
  }
  const pairs = end / 2;
  return (
    (oddZeros > pairs * 0.3 && evenZeros < pairs * 0.05) ||
    (evenZeros > pairs * 0.3 && oddZeros < pairs * 0.05)
  );
}
