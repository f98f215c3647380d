import { attributeValue, tokenizeHtml } from "./html-tokenizer.ts";

/**
 * The element structure of an HTML document as a stream of enter/exit events — what a DOM
 * would hold, without holding it. A 5 MB page makes about a million nodes; as objects they
 * cost seconds of garbage collection and a good share of a Worker's 128 MB, while the stream
 * keeps only the open elements. Readers that need to look ahead (which element is the
 * article?) walk the stream twice.
 *
 * The few tree-construction rules that change which text belongs where are applied:
 * end tags close the nearest open element of that name, and start tags close what they
 * imply (`<p>` before a block, `<li>` before the next `<li>`, cells and rows, an unclosed
 * `<head>` before body content). `</body>` and `</html>` are ignored, as browsers do for
 * text that follows them.
 *
 * Not htmlparser2's `Parser`, whose tokenizer we use: its open-element stack is an array it
 * `unshift`s on every start tag and searches on every end tag, quadratic in the nesting depth
 * (100,000 nested `<div>`s take seconds). Here the search is bounded and an end tag for an
 * element that is not open costs nothing.
 */
export interface HtmlElement {
  tag: string;
  /** this element's position among all elements in document order; the document is 0 */
  ordinal: number;
  /** only the attributes text extraction depends on, as plain fields */
  className: string | undefined;
  id: string | undefined;
  role: string | undefined;
  style: string | undefined;
  hidden: string | undefined;
  /** an <ol>'s first number */
  start: string | undefined;
}

export interface HtmlElementVisitor {
  /** Called with the element and its parent; void elements exit right after entering. */
  enter(element: HtmlElement, parent: HtmlElement): void;
  exit(element: HtmlElement): void;
  /** text (character references decoded), with the element it is in */
  text(text: string, parent: HtmlElement): void;
}

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

export const HEADINGS: ReadonlySet<string> = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

/** Start tags that close an open `<p>` (the spec's list, less the obsolete ones). */
const CLOSES_P = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "center",
  "details",
  "dialog",
  "dir",
  "div",
  "dl",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  ...HEADINGS,
  "header",
  "hgroup",
  "hr",
  "li",
  "dd",
  "dt",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "search",
  "section",
  "summary",
  "table",
  "ul",
]);
const HEAD_CONTENT = new Set([
  "title",
  "meta",
  "link",
  "base",
  "style",
  "script",
  "noscript",
  "template",
]);

/** Where the search for an element to close implicitly stops. */
const P_SCOPE = new Set([
  "#document",
  "html",
  "table",
  "td",
  "th",
  "caption",
  "button",
  "object",
  "template",
]);
const LIST_SCOPE = new Set([
  "#document",
  "html",
  "body",
  "ul",
  "ol",
  "menu",
  "table",
  "td",
  "th",
  "article",
  "section",
  "main",
  "nav",
  "aside",
  "blockquote",
  "dl",
]);
const TABLE_SCOPE = new Set(["#document", "html", "table"]);
const ROW_SCOPE = new Set(["#document", "html", "table", "tr"]);
const NO_SCOPE = new Set(["#document"]);

const DEFINITION_ITEMS = new Set(["dt", "dd"]);
const ROW_PARTS = new Set(["tr", "td", "th"]);
const CELLS = new Set(["td", "th"]);
const SECTION_PARTS = new Set(["tbody", "thead", "tfoot", "tr", "td", "th"]);

/**
 * How deep below the current element an end tag or implied end may reach. Real pages close
 * what they open within a few levels; the bound keeps pathological input (thousands of
 * unclosed tags, then stray end tags) linear.
 */
const MAX_CLOSE_SEARCH = 256;

export function walkHtmlElements(html: string, visitor: HtmlElementVisitor): void {
  let ordinal = 0;
  const document = element("#document", [], ordinal++);
  const stack: HtmlElement[] = [document];
  /** open elements by tag, so an end tag for something not open costs nothing */
  const openCount = new Map<string, number>();
  const current = () => stack[stack.length - 1]!;

  const popTo = (depth: number) => {
    for (let k = stack.length - 1; k >= depth; k--) {
      const popped = stack[k]!;
      openCount.set(popped.tag, openCount.get(popped.tag)! - 1);
      stack.length = k;
      visitor.exit(popped);
    }
  };
  const isOpen = (tags: ReadonlySet<string> | string) => {
    if (typeof tags === "string") return (openCount.get(tags) ?? 0) > 0;
    for (const tag of tags) if ((openCount.get(tag) ?? 0) > 0) return true;
    return false;
  };
  /** Closes the nearest open element named in `tags`, unless a scope boundary comes first. */
  const closeInScope = (tags: ReadonlySet<string> | string, scope: ReadonlySet<string>) => {
    if (!isOpen(tags)) return;
    const bottom = Math.max(1, stack.length - MAX_CLOSE_SEARCH);
    for (let k = stack.length - 1; k >= bottom; k--) {
      const tag = stack[k]!.tag;
      if (typeof tags === "string" ? tag === tags : tags.has(tag)) {
        popTo(k);
        return;
      }
      if (scope.has(tag)) return;
    }
  };

  const open = (tag: string, attributes: string[], selfClosing: boolean) => {
    // Anything but head content ends an unclosed <head> (else the body would sit in it).
    if (current().tag === "head" && !HEAD_CONTENT.has(tag)) popTo(stack.length - 1);
    if (CLOSES_P.has(tag)) closeInScope("p", P_SCOPE);
    if (tag === "li") closeInScope("li", LIST_SCOPE);
    else if (tag === "dt" || tag === "dd") closeInScope(DEFINITION_ITEMS, LIST_SCOPE);
    else if (tag === "tr") closeInScope(ROW_PARTS, TABLE_SCOPE);
    else if (tag === "td" || tag === "th") closeInScope(CELLS, ROW_SCOPE);
    else if (tag === "tbody" || tag === "thead" || tag === "tfoot") {
      closeInScope(SECTION_PARTS, TABLE_SCOPE);
    } else if (tag === "option" || tag === "optgroup") {
      if (current().tag === "option") popTo(stack.length - 1);
    } else if (HEADINGS.has(tag) && HEADINGS.has(current().tag)) {
      popTo(stack.length - 1);
    }
    const node = element(tag, attributes, ordinal++);
    visitor.enter(node, current());
    if (VOID.has(tag) || selfClosing) {
      visitor.exit(node);
    } else {
      stack.push(node);
      openCount.set(tag, (openCount.get(tag) ?? 0) + 1);
    }
  };

  visitor.enter(document, document);
  tokenizeHtml(html, {
    text: (text) => {
      if (current().tag === "head" && /\S/.test(text)) popTo(stack.length - 1);
      visitor.text(text, current());
    },
    open,
    close: (tag) => {
      if (tag === "br")
        open("br", [], true); // "</br>" is read as "<br>" by browsers
      else if (tag !== "body" && tag !== "html") closeInScope(tag, NO_SCOPE);
    },
  });
  popTo(1);
  visitor.exit(document);
}

function element(tag: string, attributes: string[], ordinal: number): HtmlElement {
  if (attributes.length === 0) {
    return {
      tag,
      ordinal,
      className: undefined,
      id: undefined,
      role: undefined,
      style: undefined,
      hidden: undefined,
      start: undefined,
    };
  }
  return {
    tag,
    ordinal,
    className: attributeValue(attributes, "class"),
    id: attributeValue(attributes, "id"),
    role: attributeValue(attributes, "role"),
    style: attributeValue(attributes, "style"),
    hidden: attributeValue(attributes, "hidden"),
    start: tag === "ol" ? attributeValue(attributes, "start") : undefined,
  };
}
