/**
 * A small, forgiving HTML tokenizer: enough of the WHATWG tokenizer to pull text out of real
 * pages, in one linear pass and without a DOM (bundle size matters in a Worker). It never
 * throws: a `<` that does not start a tag is text, an unterminated comment or tag runs to
 * the end of the input, and the contents of `<script>`-like elements are never parsed as
 * markup.
 */
export interface HtmlTokenHandler {
  /** text as written (character references not yet decoded) */
  text(text: string): void;
  /**
   * A start tag. Names are lower-cased; `attributes` is flat, `[name, value, name, value…]`
   * in source order (an array, not an object: cheaper on pages with a class on every tag),
   * values as written. Use `attributeValue` to read one.
   */
  open(tag: string, attributes: string[], selfClosing: boolean): void;
  close(tag: string): void;
}

/** Elements whose contents are text up to their end tag, never markup. */
const RAW_TEXT = new Set([
  "script",
  "style",
  "title",
  "textarea",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
  "noscript",
]);

const endTagPatterns = new Map<string, RegExp>();

function endTagPattern(tag: string): RegExp {
  let pattern = endTagPatterns.get(tag);
  if (!pattern) {
    pattern = new RegExp(`</${tag}[\\t\\n\\f\\r />]`, "gi");
    endTagPatterns.set(tag, pattern);
  }
  return pattern;
}

export function tokenizeHtml(html: string, handler: HtmlTokenHandler): void {
  const length = html.length;
  let i = 0;
  while (i < length) {
    const lt = html.indexOf("<", i);
    if (lt === -1) {
      handler.text(html.slice(i));
      return;
    }
    if (lt > i) handler.text(html.slice(i, lt));
    const next = html.charCodeAt(lt + 1);

    if (next === 0x21 /* ! */) {
      // Comment, doctype, CDATA: nothing to read in any of them.
      if (html.startsWith("<!--", lt)) {
        const end = html.indexOf("-->", lt + 4);
        i = end === -1 ? length : end + 3;
      } else {
        i = skipPast(html, ">", lt + 2);
      }
      continue;
    }
    if (next === 0x3f /* ? */) {
      i = skipPast(html, ">", lt + 2);
      continue;
    }
    if (next === 0x2f /* / */) {
      if (isAsciiLetter(html.charCodeAt(lt + 2))) {
        const nameEnd = tagNameEnd(html, lt + 2);
        handler.close(html.slice(lt + 2, nameEnd).toLowerCase());
        i = skipPast(html, ">", nameEnd);
      } else {
        // "</>" is dropped; "</ 3" and the like are bogus comments.
        i = skipPast(html, ">", lt + 2);
      }
      continue;
    }
    if (!isAsciiLetter(next)) {
      handler.text("<");
      i = lt + 1;
      continue;
    }

    const nameEnd = tagNameEnd(html, lt + 1);
    const tag = html.slice(lt + 1, nameEnd).toLowerCase();
    const { attributes, selfClosing, end } = readAttributes(html, nameEnd);
    handler.open(tag, attributes, selfClosing);
    i = end;
    if (RAW_TEXT.has(tag) && !selfClosing) {
      const pattern = endTagPattern(tag);
      pattern.lastIndex = i;
      const match = pattern.exec(html);
      const contentEnd = match ? match.index : length;
      if (contentEnd > i) handler.text(html.slice(i, contentEnd));
      handler.close(tag);
      i = match ? skipPast(html, ">", contentEnd + 2 + tag.length) : length;
    }
  }
}

function readAttributes(
  html: string,
  from: number,
): { attributes: string[]; selfClosing: boolean; end: number } {
  const attributes: string[] = [];
  const length = html.length;
  let i = from;
  let selfClosing = false;
  while (i < length) {
    const c = html.charCodeAt(i);
    if (c === 0x3e /* > */) return { attributes, selfClosing, end: i + 1 };
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 0x2f /* / */) {
      selfClosing = html.charCodeAt(i + 1) === 0x3e;
      i++;
      continue;
    }
    selfClosing = false;
    // The name runs to whitespace, "/", ">" or "=" (a leading "=" belongs to the name).
    let nameEnd = i + 1;
    while (nameEnd < length) {
      const n = html.charCodeAt(nameEnd);
      if (isSpace(n) || n === 0x2f || n === 0x3e || n === 0x3d) break;
      nameEnd++;
    }
    const name = html.slice(i, nameEnd).toLowerCase();
    i = nameEnd;
    while (i < length && isSpace(html.charCodeAt(i))) i++;
    let value = "";
    if (html.charCodeAt(i) === 0x3d /* = */) {
      i++;
      while (i < length && isSpace(html.charCodeAt(i))) i++;
      const quote = html.charCodeAt(i);
      if (quote === 0x22 || quote === 0x27) {
        const close = html.indexOf(quote === 0x22 ? '"' : "'", i + 1);
        // An unclosed quote would swallow the rest of the page; end the tag at the next ">".
        if (close === -1) {
          const gt = html.indexOf(">", i + 1);
          const end = gt === -1 ? length : gt;
          attributes.push(name, html.slice(i + 1, end));
          return { attributes, selfClosing: false, end: gt === -1 ? length : gt + 1 };
        }
        value = html.slice(i + 1, close);
        i = close + 1;
      } else {
        const start = i;
        while (i < length) {
          const n = html.charCodeAt(i);
          if (isSpace(n) || n === 0x3e) break;
          i++;
        }
        value = html.slice(start, i);
      }
    }
    attributes.push(name, value);
  }
  return { attributes, selfClosing, end: length };
}

/** An attribute's value; the first of duplicated attributes wins, as in browsers. */
export function attributeValue(attributes: readonly string[], name: string): string | undefined {
  for (let k = 0; k < attributes.length; k += 2)
    if (attributes[k] === name) return attributes[k + 1];
  return undefined;
}

function tagNameEnd(html: string, from: number): number {
  let i = from;
  while (i < html.length) {
    const c = html.charCodeAt(i);
    if (isSpace(c) || c === 0x2f || c === 0x3e) break;
    i++;
  }
  return i;
}

function skipPast(html: string, needle: string, from: number): number {
  const at = html.indexOf(needle, from);
  return at === -1 ? html.length : at + needle.length;
}

function isAsciiLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}
