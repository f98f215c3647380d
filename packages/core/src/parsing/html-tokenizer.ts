import { decodeHTMLAttribute } from "entities";
import { QuoteType, Tokenizer, type TokenizerCallbacks } from "htmlparser2";

/**
 * HTML tokens for text extraction, from htmlparser2's tokenizer (the WHATWG states that
 * matter for text, every HTML5 character reference through `entities`), in one linear pass
 * and without a DOM. The element structure is built on these by html-elements.ts.
 */
export interface HtmlTokenHandler {
  /** text with its character references decoded; adjacent runs arrive as one */
  text(text: string): void;
  /**
   * A start tag. Names are lower-cased; `attributes` is flat, `[name, value, name, value…]`
   * in source order (an array, not an object: cheaper on pages with a class on every tag),
   * values decoded. Use `attributeValue` to read one.
   */
  open(tag: string, attributes: string[], selfClosing: boolean): void;
  close(tag: string): void;
}

/**
 * Elements whose contents the tokenizer reads as text up to their end tag: `/>` does not
 * close them (else `<script src=x />code</script>` would put the code in the page's text).
 */
const TEXT_ONLY = new Set([
  "script",
  "style",
  "title",
  "textarea",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
  "plaintext",
]);

export function tokenizeHtml(html: string, handler: HtmlTokenHandler): void {
  let source = html;
  for (;;) {
    const resumeAt = tokenizeUntilCutTag(source, handler);
    if (resumeAt === null) return;
    source = source.slice(resumeAt);
  }
}

/**
 * Tokenizes `source`; returns where to tokenize again when the input ended inside a start
 * tag because an attribute's quote was never closed. A browser drops the rest of the page
 * then; we end the tag at the next ">" instead, so one typo does not lose the article. Each
 * restart follows a quote that has no partner in the rest of the input, so there are at most
 * two (one per quote character) and the whole stays linear.
 */
function tokenizeUntilCutTag(source: string, handler: HtmlTokenHandler): number | null {
  const texts: string[] = [];
  let tag = "";
  let attributes: string[] = [];
  let attributeName = "";
  let attributeNameEnd = -1;
  let valueParts: string[] = [];
  let resumeAt: number | null = null;

  const flushText = () => {
    if (texts.length === 0) return;
    handler.text(texts.length === 1 ? texts[0]! : texts.join(""));
    texts.length = 0;
  };
  const endStartTag = (selfClosing: boolean) => {
    flushText();
    handler.open(tag, attributes, selfClosing && !TEXT_ONLY.has(tag));
    tag = "";
  };

  const callbacks: TokenizerCallbacks = {
    ontext(start, end) {
      texts.push(source.slice(start, end));
    },
    ontextentity(codePoint) {
      texts.push(String.fromCodePoint(codePoint));
    },
    onopentagname(start, end) {
      tag = source.slice(start, end).toLowerCase();
      attributes = [];
      attributeNameEnd = -1;
    },
    onattribname(start, end) {
      attributeName = source.slice(start, end).toLowerCase();
      attributeNameEnd = end;
      valueParts = [];
    },
    onattribdata(start, end) {
      valueParts.push(source.slice(start, end));
    },
    onattribentity(codePoint) {
      valueParts.push(String.fromCodePoint(codePoint));
    },
    onattribend(quote) {
      attributes.push(attributeName, quote === QuoteType.NoValue ? "" : valueParts.join(""));
      attributeNameEnd = -1;
    },
    onopentagend() {
      endStartTag(false);
    },
    onselfclosingtag() {
      endStartTag(true);
    },
    onclosetag(start, end) {
      flushText();
      handler.close(source.slice(start, end).toLowerCase());
    },
    oncomment() {},
    oncdata() {},
    ondeclaration() {},
    onprocessinginstruction() {},
    onend() {
      flushText();
      // The input ended inside a start tag: recover from an unclosed quote (see above).
      if (tag === "" || attributeNameEnd === -1) return;
      const quote = openingQuote(source, attributeNameEnd);
      if (quote === -1) return;
      const gt = source.indexOf(">", quote + 1);
      const value = source.slice(quote + 1, gt === -1 ? source.length : gt);
      attributes.push(attributeName, decodeHTMLAttribute(value));
      endStartTag(false);
      if (gt !== -1) resumeAt = gt + 1;
    },
  };
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks);
  tokenizer.write(source);
  tokenizer.end();
  return resumeAt;
}

/** Where the quote of `name = "value` opens, after an attribute name ending at `from`; else -1. */
function openingQuote(source: string, from: number): number {
  let i = skipSpace(source, from);
  if (source.charCodeAt(i) !== 0x3d /* = */) return -1;
  i = skipSpace(source, i + 1);
  const c = source.charCodeAt(i);
  return c === 0x22 || c === 0x27 ? i : -1;
}

function skipSpace(source: string, from: number): number {
  let i = from;
  while (i < source.length && /[\t\n\f\r ]/.test(source.charAt(i))) i++;
  return i;
}

/** An attribute's value; the first of duplicated attributes wins, as in browsers. */
export function attributeValue(attributes: readonly string[], name: string): string | undefined {
  for (let k = 0; k < attributes.length; k += 2)
    if (attributes[k] === name) return attributes[k + 1];
  return undefined;
}
