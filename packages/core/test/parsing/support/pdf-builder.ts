import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";

/**
 * A minimal PDF writer for tests: real, valid PDFs with known text, so the parser is tested
 * against files pdf.js has to actually read (xref offsets, fonts, encodings, encryption)
 * rather than against mocks.
 *
 * Fonts:
 * - `latin`: the standard Helvetica with WinAnsiEncoding (text given as a JS string).
 * - the CJK fonts (CID_FONTS): Type0 fonts with a *predefined* CMap (UniGB-UCS2-H,
 *   90ms-RKSJ-H…), a non-embedded CID font and no /ToUnicode. The strings are written as
 *   codes of that encoding, so the only way to get Unicode back is the spec's route: code →
 *   CID through the named CMap, then CID → Unicode through the collection's Adobe-*-UCS2.
 *   Without those CMaps the text is lost.
 *
 * Encryption: the standard security handler, revision 2 (40-bit RC4), implemented here because
 * no PDF tool can be assumed on the machine.
 */
interface CidFont {
  baseFont: string;
  /** the predefined CMap named as the font's /Encoding */
  encoding: string;
  ordering: "GB1" | "CNS1" | "Japan1" | "Korea1";
  supplement: number;
  /** text → the bytes of that encoding */
  encode: (text: string) => Uint8Array;
}

export const CID_FONTS = {
  chinese: cid("STSong-Light", "UniGB-UCS2-H", "GB1", 2, ucs2),
  traditional: cid("MSung-Light", "UniCNS-UCS2-H", "CNS1", 1, ucs2),
  japanese: cid("KozMinPr6N-Regular", "UniJIS-UCS2-H", "Japan1", 6, ucs2),
  korean: cid("HYSMyeongJo-Medium", "UniKS-UCS2-H", "Korea1", 1, ucs2),
  japaneseShiftJis: cid("KozMinPr6N-Regular", "90ms-RKSJ-H", "Japan1", 6, legacy("shift_jis")),
  chineseGbk: cid("STSong-Light", "GBK-EUC-H", "GB1", 2, legacy("gbk")),
  traditionalBig5: cid("MSung-Light", "ETen-B5-H", "CNS1", 1, legacy("big5")),
  koreanUhc: cid("HYSMyeongJo-Medium", "KSCms-UHC-H", "Korea1", 1, legacy("euc-kr")),
  /** a predefined CMap the parser does not bundle */
  japaneseUtf16: cid("KozMinPr6N-Regular", "UniJIS-UTF16-H", "Japan1", 6, ucs2),
} satisfies Record<string, CidFont>;

export type FontName = "latin" | keyof typeof CID_FONTS;

export interface TextRun {
  text: string;
  font?: FontName;
  /** baseline position in points from the bottom-left corner */
  x?: number;
  y?: number;
  size?: number;
}

export interface PageSpec {
  /** each run is drawn on its own line unless x/y are given */
  runs?: TextRun[];
  /** draw a small grey image covering part of the page (a "scanned" page) */
  image?: boolean;
}

export interface PdfSpec {
  pages: PageSpec[];
  title?: string;
  /** FlateDecode the content streams, as real producers do */
  compress?: boolean;
  encrypt?: { userPassword: string; ownerPassword: string };
}

const FONT_NAMES = ["latin", ...Object.keys(CID_FONTS)] as FontName[];
const fontResource = (font: FontName) => `F${FONT_NAMES.indexOf(font) + 1}`;

export function buildPdf(spec: PdfSpec): Uint8Array {
  const objects: Array<{ dict: string; stream?: Uint8Array }> = [];
  const add = (dict: string, stream?: Uint8Array): number => {
    objects.push(stream ? { dict, stream } : { dict });
    return objects.length;
  };

  const catalog = add(""); // filled in once the page tree exists
  const pagesRoot = add("");
  const fonts = FONT_NAMES.map((font) =>
    font === "latin"
      ? add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
      : addCidFont(add, CID_FONTS[font]),
  );
  const image = add(
    "<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>",
    Uint8Array.from([0x20, 0xc0, 0xc0, 0x20]),
  );
  const fontEntries = FONT_NAMES.map((font, k) => `/${fontResource(font)} ${fonts[k]} 0 R`);
  const resources = `<< /Font << ${fontEntries.join(" ")} >> /XObject << /Im1 ${image} 0 R >> >>`;

  const pageIds: number[] = [];
  for (const page of spec.pages) {
    const content = latin1(pageContent(page));
    const body = spec.compress ? new Uint8Array(deflateSync(content)) : content;
    const filter = spec.compress ? " /Filter /FlateDecode" : "";
    const contents = add(`<< /Length ${body.length}${filter} >>`, body);
    pageIds.push(
      add(
        `<< /Type /Page /Parent ${pagesRoot} 0 R /MediaBox [0 0 595 842] /Resources ${resources} /Contents ${contents} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = { dict: `<< /Type /Catalog /Pages ${pagesRoot} 0 R >>` };
  objects[pagesRoot - 1] = {
    dict: `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pageIds.length} >>`,
  };
  const info = spec.title === undefined ? null : add(`<< /Title ${literal(spec.title)} >>`);

  const fileId = createHash("md5").update(JSON.stringify(spec)).digest();
  const security = spec.encrypt ? standardSecurity(spec.encrypt, fileId) : null;
  const encryptId = security ? add(security.dict) : null;

  const chunks: Uint8Array[] = [latin1("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")];
  let length = chunks[0]!.length;
  const push = (bytes: Uint8Array) => {
    chunks.push(bytes);
    length += bytes.length;
  };
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    const id = index + 1;
    offsets.push(length);
    // The /Encrypt dictionary itself is never encrypted.
    const encrypt = security && id !== encryptId ? security.objectCipher(id) : null;
    let dict = object.dict;
    if (encrypt) dict = encryptStrings(dict, encrypt);
    push(latin1(`${id} 0 obj\n${dict}\n`));
    if (object.stream) {
      push(latin1("stream\n"));
      push(encrypt ? encrypt(object.stream) : object.stream);
      push(latin1("\nendstream\n"));
    }
    push(latin1("endobj\n"));
  });
  const xrefAt = length;
  const xref = [`xref\n0 ${objects.length + 1}\n`, "0000000000 65535 f \n"];
  for (const offset of offsets) xref.push(`${String(offset).padStart(10, "0")} 00000 n \n`);
  const id = hex(fileId);
  const trailer = [
    `/Size ${objects.length + 1}`,
    `/Root ${catalog} 0 R`,
    info ? `/Info ${info} 0 R` : "",
    encryptId ? `/Encrypt ${encryptId} 0 R` : "",
    `/ID [<${id}> <${id}>]`,
  ].join(" ");
  push(latin1(`${xref.join("")}trailer\n<< ${trailer} >>\nstartxref\n${xrefAt}\n%%EOF\n`));

  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function addCidFont(add: (dict: string) => number, font: CidFont): number {
  const descriptor = add(
    `<< /Type /FontDescriptor /FontName /${font.baseFont} /Flags 6 /FontBBox [0 -141 1000 855] /ItalicAngle 0 /Ascent 855 /Descent -141 /CapHeight 700 /StemV 80 >>`,
  );
  const descendant = add(
    `<< /Type /Font /Subtype /CIDFontType0 /BaseFont /${font.baseFont} /CIDSystemInfo << /Registry (Adobe) /Ordering (${font.ordering}) /Supplement ${font.supplement} >> /FontDescriptor ${descriptor} 0 R /DW 1000 >>`,
  );
  return add(
    `<< /Type /Font /Subtype /Type0 /BaseFont /${font.baseFont}-${font.encoding} /Encoding /${font.encoding} /DescendantFonts [${descendant} 0 R] >>`,
  );
}

function pageContent(page: PageSpec): string {
  const ops: string[] = [];
  if (page.image) ops.push("q 400 0 0 300 100 400 cm /Im1 Do Q");
  let y = 780;
  for (const run of page.runs ?? []) {
    const font = run.font ?? "latin";
    const size = run.size ?? 12;
    const x = run.x ?? 72;
    const at = run.y ?? y;
    y = at - size * 1.8;
    const text =
      font === "latin" ? literal(run.text) : `<${hex(CID_FONTS[font].encode(run.text))}>`;
    ops.push(`BT /${fontResource(font)} ${size} Tf ${x} ${at} Td ${text} Tj ET`);
  }
  return ops.join("\n");
}

/** A PDF literal string in WinAnsi (Latin-1 is close enough for test text). */
function literal(text: string): string {
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}

function cid(
  baseFont: string,
  encoding: string,
  ordering: CidFont["ordering"],
  supplement: number,
  encode: (text: string) => Uint8Array,
): CidFont {
  return { baseFont, encoding, ordering, supplement, encode };
}

/** UCS-2, big-endian: the codes of the Uni*-UCS2 CMaps. */
function ucs2(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    out[2 * i] = text.charCodeAt(i) >> 8;
    out[2 * i + 1] = text.charCodeAt(i) & 0xff;
  }
  return out;
}

/**
 * An encoder for a legacy double-byte encoding, built by decoding every two-byte code with
 * TextDecoder (Node has decoders for them, not encoders). ASCII stays one byte.
 */
function legacy(label: string): (text: string) => Uint8Array {
  let table: Map<string, number[]> | null = null;
  return (text) => {
    if (!table) {
      table = new Map();
      const decoder = new TextDecoder(label, { fatal: true, ignoreBOM: false });
      for (let lead = 0x81; lead <= 0xfe; lead++) {
        for (let trail = 0x40; trail <= 0xfe; trail++) {
          let char: string;
          try {
            char = decoder.decode(Uint8Array.from([lead, trail]));
          } catch {
            continue;
          }
          if (char.length === 1 && !table.has(char)) table.set(char, [lead, trail]);
        }
      }
    }
    const bytes: number[] = [];
    for (const char of text) {
      if (char.charCodeAt(0) < 0x80) bytes.push(char.charCodeAt(0));
      else {
        const code = table.get(char);
        if (!code) throw new Error(`${char} has no ${label} code`);
        bytes.push(...code);
      }
    }
    return Uint8Array.from(bytes);
  };
}

function latin1(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex").toUpperCase();
}

// --- Standard security handler, revision 2 (PDF 1.7, 7.6.3) ---

const PASSWORD_PADDING = Uint8Array.from([
  0x28, 0xbf, 0x4e, 0x5e, 0x4e, 0x75, 0x8a, 0x41, 0x64, 0x00, 0x4e, 0x56, 0xff, 0xfa, 0x01, 0x08,
  0x2e, 0x2e, 0x00, 0xb6, 0xd0, 0x68, 0x3e, 0x80, 0x2f, 0x0c, 0xa9, 0xfe, 0x64, 0x53, 0x69, 0x7a,
]);
/** print + copy allowed, everything else refused; any value works for a test */
const PERMISSIONS = -44;

function standardSecurity(
  passwords: { userPassword: string; ownerPassword: string },
  fileId: Uint8Array,
): { dict: string; objectCipher: (id: number) => (data: Uint8Array) => Uint8Array } {
  const md5 = (...parts: Uint8Array[]) => {
    const hash = createHash("md5");
    for (const part of parts) hash.update(part);
    return new Uint8Array(hash.digest());
  };
  const pad = (password: string) => {
    const out = new Uint8Array(32);
    const bytes = latin1(password).subarray(0, 32);
    out.set(bytes);
    out.set(PASSWORD_PADDING.subarray(0, 32 - bytes.length), bytes.length);
    return out;
  };
  // Algorithm 3: the O entry.
  const ownerKey = md5(pad(passwords.ownerPassword || passwords.userPassword)).subarray(0, 5);
  const owner = rc4(ownerKey, pad(passwords.userPassword));
  // Algorithm 2: the file key.
  const p = new Uint8Array(4);
  new DataView(p.buffer).setInt32(0, PERMISSIONS, true);
  const fileKey = md5(pad(passwords.userPassword), owner, p, fileId).subarray(0, 5);
  // Algorithm 4: the U entry.
  const user = rc4(fileKey, PASSWORD_PADDING);
  return {
    dict: `<< /Filter /Standard /V 1 /R 2 /O <${hex(owner)}> /U <${hex(user)}> /P ${PERMISSIONS} >>`,
    // Algorithm 1: a key per object.
    objectCipher: (id) => {
      const salt = Uint8Array.from([id & 0xff, (id >> 8) & 0xff, (id >> 16) & 0xff, 0, 0]);
      const key = md5(fileKey, salt).subarray(0, fileKey.length + 5);
      return (data) => rc4(key, data);
    },
  };
}

/** Encrypts the literal strings of a dictionary (only /Title uses them here). */
function encryptStrings(dict: string, encrypt: (data: Uint8Array) => Uint8Array): string {
  return dict.replace(/\((?:\\.|[^\\)])*\)/g, (match) => {
    const raw = match.slice(1, -1).replace(/\\(.)/g, "$1");
    return `<${hex(encrypt(latin1(raw)))}>`;
  });
}

function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = new Uint8Array(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]!) & 0xff;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
  }
  return out;
}
