import { getDocumentProxy } from "unpdf";
import { BadRequestError } from "../shared/errors.ts";
import { ParseError } from "./parse-error.ts";
import { bundledCMapFactory } from "./pdf-cmaps.ts";
import { withoutNul } from "./without-nul.ts";

export interface PdfPageTexts {
  /** the text of each page read, in order; "" for a page without text */
  pages: string[];
  /** pages in the whole document, so a caller knows where the last slice ends */
  totalPages: number;
  /** the document's Title metadata, when set */
  title: string | null;
  /**
   * Predefined CJK CMaps the document needed that are not bundled: text in those fonts is
   * missing from `pages`. Worth reporting when the pages come out empty.
   */
  missingCMaps: string[];
}

export interface PdfPageRange {
  /** 1-based; defaults to 1 */
  firstPage?: number;
  /** defaults to all pages from `firstPage` */
  maxPages?: number;
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;
type PdfPage = Awaited<ReturnType<PdfDocument["getPage"]>>;
type PdfTextContent = Awaited<ReturnType<PdfPage["getTextContent"]>>;

/**
 * The text of pages `firstPage`…`firstPage + maxPages - 1` (clamped to the document), with
 * pdf.js via unpdf. The document is opened for each call, so a 1,000-page PDF can be read in
 * bounded slices, one Queue message each; pages are released as soon as they are read.
 *
 * Fails with a ParseError a person can act on: password-protected, or not a readable PDF.
 * A page without text is "", not an error: whether the *document* has no text layer is
 * for the caller to decide once every slice is read (see `noTextLayerError`).
 */
export async function pdfPageTexts(
  bytes: Uint8Array,
  { firstPage = 1, maxPages = Number.POSITIVE_INFINITY }: PdfPageRange = {},
): Promise<PdfPageTexts> {
  if (!Number.isInteger(firstPage) || firstPage < 1) {
    throw new BadRequestError("must be an integer of at least 1", "firstPage");
  }
  if (!(maxPages >= 1)) throw new BadRequestError("must be at least 1", "maxPages");

  const missing = new Set<string>();
  let pdf: PdfDocument;
  try {
    // A copy: pdf.js transfers the buffer it is given to its worker, which would leave the
    // caller's bytes detached (empty) for a retry or a second slice.
    pdf = await getDocumentProxy(bytes.slice(), {
      BinaryDataFactory: bundledCMapFactory(missing),
      useWorkerFetch: false,
      cMapPacked: true,
      verbosity: 0,
      isEvalSupported: false,
      // Not needed for text, and fonts could not be installed in a Worker anyway.
      disableFontFace: true,
    });
  } catch (error) {
    throw openFailure(error);
  }

  try {
    const totalPages = pdf.numPages;
    const lastPage = Math.min(totalPages, firstPage + maxPages - 1);
    const pages: string[] = [];
    let failure: unknown = null;
    for (let number = firstPage; number <= lastPage; number++) {
      try {
        const page = await pdf.getPage(number);
        pages.push(pageText(await page.getTextContent()));
        page.cleanup();
      } catch (error) {
        // One broken page should not lose the other 999.
        failure ??= error;
        pages.push("");
      }
    }
    if (failure !== null && pages.every((p) => p === "")) throw openFailure(failure);
    return { pages, totalPages, title: await documentTitle(pdf), missingCMaps: [...missing] };
  } finally {
    await pdf.destroy();
  }
}

/** For a caller that found no text on any page of a PDF. */
export function noTextLayerError(missingCMaps: readonly string[] = []): ParseError {
  if (missingCMaps.length > 0) {
    return new ParseError(
      `the PDF's text uses character encodings this service cannot decode (${missingCMaps.join(", ")}); ` +
        "export it again with embedded fonts, or as text",
      { reason: "no_text_layer" },
    );
  }
  return new ParseError(
    "the PDF has no text layer (is it scanned images?); run OCR on it first, then upload the result",
    { reason: "no_text_layer" },
  );
}

function openFailure(error: unknown): ParseError {
  if (error instanceof ParseError) return error;
  const name = error instanceof Error ? error.name : "";
  if (name === "PasswordException") {
    return new ParseError("the PDF is password-protected; upload a copy without a password", {
      reason: "password_protected",
      cause: error,
    });
  }
  const detail = error instanceof Error && error.message ? ` (${error.message})` : "";
  return new ParseError(
    `the file is not a readable PDF${detail}; check that the upload is complete and not corrupted`,
    { reason: "unreadable_pdf", cause: error },
  );
}

async function documentTitle(pdf: PdfDocument): Promise<string | null> {
  try {
    const { info } = await pdf.getMetadata();
    const title = (info as { Title?: unknown }).Title;
    return typeof title === "string" && title.trim() !== "" ? title.trim() : null;
  } catch {
    return null; // metadata is a nicety; a broken Info dictionary must not fail the text
  }
}

/**
 * A page's text items as lines: pdf.js marks the item that ends a line (`hasEOL`). A gap
 * between lines clearly taller than the text (more than 1.5 lines) starts a new paragraph,
 * which gives the chunker the paragraph boundaries a PDF does not otherwise record.
 */
function pageText(content: PdfTextContent): string {
  const lines: string[] = [];
  let line = "";
  let lineY: number | null = null;
  let lineHeight = 0;
  let previousY: number | null = null;
  let previousHeight = 0;
  const endLine = () => {
    const text = line.replace(/[ \t\u00a0]+/g, " ").trim();
    if (text !== "") {
      const gap = previousY !== null && lineY !== null ? previousY - lineY : 0;
      if (lines.length > 0 && gap > 1.5 * Math.max(previousHeight, lineHeight)) lines.push("");
      lines.push(text);
      previousY = lineY;
      previousHeight = lineHeight;
    }
    line = "";
    lineY = null;
    lineHeight = 0;
  };
  for (const item of content.items) {
    if (!("str" in item)) continue; // marked-content boundaries carry no text
    if (item.str !== "") {
      const y = item.transform[5] as number;
      const height = Math.abs(item.transform[3] as number) || item.height;
      if (lineY === null) lineY = y;
      lineHeight = Math.max(lineHeight, height);
      line += item.str;
    }
    if (item.hasEOL) endLine();
  }
  endLine();
  // Fonts without a usable ToUnicode map can yield U+0000 for glyphs.
  return withoutNul(lines.join("\n"));
}
