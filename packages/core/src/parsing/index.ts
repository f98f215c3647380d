export { isBinaryContent, startsWithPdfMagic } from "./binary-content.ts";
export { type CsvSlice, type CsvTable, csvRecordsFrom, parseCsv } from "./csv-records.ts";
export { type DecodeTextOptions, decodeText } from "./decode-text.ts";
export { type HtmlText, htmlToText } from "./html-to-text.ts";
export {
  type MarkdownText,
  markdownToText,
  type SplitMarkdown,
  splitFrontMatter,
} from "./markdown-to-text.ts";
export { ParseError, type ParseFailure } from "./parse-error.ts";
export {
  type ParsedSource,
  type ProseKind,
  parseSource,
  proseToText,
  requireSourceKind,
  type SourceDescription,
} from "./parse-source.ts";
export {
  noTextLayerError,
  type PdfPageRange,
  type PdfPageTexts,
  pdfPageTexts,
} from "./pdf-to-text.ts";
export { normalizeLineBreaks, plainTextToText } from "./plain-text.ts";
export {
  binaryContentRefusal,
  detectSourceKind,
  SOURCE_KINDS,
  type SourceKind,
  type SourceKindHints,
} from "./source-kind.ts";
export { withoutNul } from "./without-nul.ts";
