import { HEADINGS, type HtmlElement, walkHtmlElements } from "./html-elements.ts";

export interface HtmlText {
  /** the `<title>`, else the first `<h1>`; null when the page has neither */
  title: string | null;
  /** the readable text: paragraphs separated by a blank line, lines by a newline */
  text: string;
}

/**
 * The readable text of a page — the article, not the menus around it. Without a DOM or a
 * readability library (both too heavy for a Worker): htmlparser2's tokenizer
 * (html-tokenizer.ts), the element structure as a stream (html-elements.ts), and two walks
 * over it — one to find where the content is and the title, one to write the text of that
 * part:
 *
 * - Content root: the top-level `<article>`s, else `<main>` / `[role=main]`, else `<body>`,
 *   else the whole input; a root with no text falls through to the next.
 * - Dropped: scripts, styles, form controls, embedded media, `nav`, `aside`, `footer`, a
 *   page-level `header` (one inside an article or main is the article's own title block and
 *   is kept), landmarks that mean the same (`role=navigation|banner|contentinfo|…`),
 *   elements hidden with `hidden` or `display:none`, and containers whose class or id names
 *   navigation, menus, breadcrumbs, sidebars or cookie/consent banners. A `<form>` is dropped
 *   only when it holds no prose: some sites (ASP.NET WebForms) wrap the whole page in one.
 * - Layout: paragraphs, headings, lists, tables, quotes and `<pre>` are separated by a blank
 *   line, so a chunker can prefer those boundaries; `div`, `li`, `tr`, `br` end a line; list
 *   items get "- " or "1. ", table cells are joined with " | ". Whitespace collapses as a
 *   browser collapses it, except inside `<pre>`.
 *
 * Never throws on malformed markup. Linear in the input: no backtracking regular
 * expressions, no recursion and no tree in memory, so a 5 MB page (or 100,000 unclosed
 * `<div>`s) is fine in a Worker.
 */
export function htmlToText(html: string): HtmlText {
  const scan = scanDocument(html);
  const candidates = [scan.articles, scan.main, scan.body, [0]];
  let text = "";
  for (const roots of candidates) {
    if (roots.length === 0) continue;
    text = renderText(html, new Set(roots), scan.formsWithProse);
    if (text !== "") break;
  }
  const title = scan.title ?? scan.firstHeading;
  return { title: title === null || title === "" ? null : title, text };
}

// --- What is content ---

/** Never text a reader came for. */
const DROPPED_TAGS = new Set([
  "head",
  "title",
  "meta",
  "link",
  "base",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "canvas",
  "video",
  "audio",
  "nav",
  "aside",
  "footer",
  "button",
  "select",
  "option",
  "optgroup",
  "datalist",
  "textarea",
  "input",
  "dialog",
  "noembed",
  "noframes",
  "xmp",
]);

const DROPPED_ROLES = new Set([
  "navigation",
  "banner",
  "contentinfo",
  "complementary",
  "search",
  "menu",
  "menubar",
  "dialog",
  "alertdialog",
]);

/**
 * Class/id words that mark site chrome, matched as whole words ("main-nav", "cookie_banner",
 * not "canvas")…
 */
const CHROME_WORD =
  /(?:^|[\s_-])(?:nav|navbar|navigation|menu|menubar|breadcrumbs?|sidebar|cookies?|consent|gdpr|skiplink)(?:$|[\s_-])/i;
/** …unless the same attribute also says it is the content ("sidebar-content" is not chrome). */
const CONTENT_WORD = /(?:^|[\s_-])(?:content|article|post|entry|story|text)(?:$|[\s_-])/i;
/** Elements that are content by their nature, whatever their class says. */
const NEVER_CHROME = new Set(["html", "body", "article", "main", "p", ...HEADINGS, "pre"]);

/** What makes a form more than a search box or a login. */
const PROSE = new Set(["p", "article", "main", ...HEADINGS]);

function isContentLandmark(element: HtmlElement): boolean {
  return element.tag === "article" || element.tag === "main" || element.role === "main";
}

/**
 * Whether an element (and so everything in it) is left out. `insideContent`: it is within
 * an article or main, where a `<header>` is the article's own. `formsWithProse`: null while
 * scanning, when every form is kept (an article inside a form must still be found).
 */
function isDropped(
  element: HtmlElement,
  insideContent: boolean,
  formsWithProse: ReadonlySet<number> | null,
): boolean {
  const { tag } = element;
  if (DROPPED_TAGS.has(tag)) return true;
  if (tag === "header" && !insideContent) return true;
  if (tag === "form" && formsWithProse !== null && !formsWithProse.has(element.ordinal)) {
    return true;
  }
  // hidden="until-found" is collapsed content a reader can open (and search finds).
  const hidden = element.hidden;
  if (hidden !== undefined && hidden.toLowerCase() !== "until-found") return true;
  const style = element.style;
  if (style !== undefined && /display\s*:\s*none/i.test(style)) return true;
  const role = element.role;
  if (role !== undefined && DROPPED_ROLES.has(role.trim().toLowerCase())) return true;
  if (NEVER_CHROME.has(tag)) return false;
  return namesChrome(element.className) || namesChrome(element.id);
}

function namesChrome(value: string | undefined): boolean {
  return value !== undefined && CHROME_WORD.test(value) && !CONTENT_WORD.test(value);
}

interface DocumentScan {
  /** ordinals of the articles not inside another article */
  articles: number[];
  /** the first main / [role=main] not inside an article, as a one-element list */
  main: number[];
  body: number[];
  title: string | null;
  firstHeading: string | null;
  formsWithProse: Set<number>;
}

interface ScanFrame {
  element: HtmlElement;
  dropped: boolean;
  insideContent: boolean;
  insideArticle: boolean;
}

/** The first walk: where the content is, which forms hold prose, and the title. */
function scanDocument(html: string): DocumentScan {
  const scan: DocumentScan = {
    articles: [],
    main: [],
    body: [],
    title: null,
    firstHeading: null,
    formsWithProse: new Set(),
  };
  const frames: ScanFrame[] = [];
  const openForms: HtmlElement[] = [];
  let collecting: { element: HtmlElement; parts: string[] } | null = null;

  walkHtmlElements(html, {
    enter(element, parent) {
      const { tag } = element;
      const up = frames[frames.length - 1];
      const insideContent = up ? up.insideContent || isContentLandmark(parent) : false;
      const insideArticle = up ? up.insideArticle || parent.tag === "article" : false;
      // <head> is not content, but its <title> is the page's: children of <head> are judged
      // one by one instead of inheriting its drop. (Elsewhere a dropped element drops its
      // children, so the <title> of an <svg> is never taken for the page's.)
      const inheritsDrop = up?.dropped === true && up.element.tag !== "head";
      const dropped = inheritsDrop || (up !== undefined && isDropped(element, insideContent, null));
      frames.push({ element, dropped, insideContent, insideArticle });
      if (tag === "title" && scan.title === null && collecting === null && !inheritsDrop) {
        collecting = { element, parts: [] };
      }
      if (dropped) return;
      if (tag === "form") openForms.push(element);
      if (PROSE.has(tag)) for (const form of openForms) scan.formsWithProse.add(form.ordinal);
      if (tag === "body" && scan.body.length === 0) scan.body.push(element.ordinal);
      if (tag === "h1" && scan.firstHeading === null && collecting === null) {
        collecting = { element, parts: [] };
      }
      if (insideArticle) return;
      if (tag === "article") scan.articles.push(element.ordinal);
      else if (isContentLandmark(element) && scan.main.length === 0) {
        scan.main.push(element.ordinal);
      }
    },
    exit(element) {
      frames.pop();
      if (openForms[openForms.length - 1] === element) openForms.pop();
      if (collecting?.element === element) {
        const text = oneLine(collecting.parts.join(""));
        if (element.tag === "title") scan.title = text;
        else scan.firstHeading = text;
        collecting = null;
      }
    },
    text(text) {
      collecting?.parts.push(text);
    },
  });
  return scan;
}

function oneLine(text: string): string {
  return text.replace(COLLAPSIBLE_SPACE, " ").trim();
}

// --- Writing the text ---

/** Separated from what follows by a blank line. */
const PARAGRAPHS = new Set([
  "p",
  ...HEADINGS,
  "ul",
  "ol",
  "dl",
  "table",
  "blockquote",
  "pre",
  "figure",
  "hr",
  "section",
  "article",
  "main",
  "address",
  "fieldset",
  "header",
  "hgroup",
]);
/** Ended by a line break. */
const LINES = new Set([
  "div",
  "li",
  "tr",
  "dt",
  "dd",
  "figcaption",
  "caption",
  "summary",
  "details",
  "legend",
  "body",
  "html",
  "thead",
  "tbody",
  "tfoot",
  "form",
  "menu",
  "center",
  "search",
]);

const COLLAPSIBLE_SPACE = /[\t\n\f\r \u00a0]+/g;

/** Accumulates text with the pending breaks and spaces a browser's layout would produce. */
class TextWriter {
  private readonly parts: string[] = [];
  /** newlines at the end of what was written (0 after text) */
  private trailingNewlines = 0;
  /** newlines the next text must be preceded by */
  private wantedNewlines = 0;
  private pendingSpace = false;
  /** a list marker waiting for the item's first text */
  private prefix = "";
  /** whether `<pre>` text (which may hold trailing spaces and blank-line runs) was written */
  private wrotePreformatted = false;

  private get atLineStart(): boolean {
    return this.parts.length === 0 || this.trailingNewlines > 0 || this.wantedNewlines > 0;
  }

  block(level: 1 | 2): void {
    this.wantedNewlines = Math.max(this.wantedNewlines, level);
    this.pendingSpace = false;
  }

  /** `<br>`: one more line than is already pending, at most a blank line. */
  lineBreak(): void {
    this.wantedNewlines = Math.min(2, Math.max(this.wantedNewlines, this.trailingNewlines) + 1);
    this.pendingSpace = false;
  }

  listMarker(marker: string): void {
    this.prefix = marker;
  }

  /** Text whose whitespace collapses. */
  inline(decoded: string): void {
    const text = decoded.replace(COLLAPSIBLE_SPACE, " ");
    if (text === "") return;
    if (text === " ") {
      this.pendingSpace = true;
      return;
    }
    const leading = text.charCodeAt(0) === 0x20;
    const trailing = text.charCodeAt(text.length - 1) === 0x20;
    if (leading) this.pendingSpace = true;
    this.write(text.slice(leading ? 1 : 0, trailing ? -1 : undefined));
    this.pendingSpace = trailing;
  }

  /** Text kept exactly as written (inside `<pre>`). */
  preformatted(decoded: string): void {
    const text = decoded.replace(/\r\n?/g, "\n");
    if (text === "") return;
    this.pendingSpace = false;
    this.wrotePreformatted = true;
    this.write(text);
    let newlines = 0;
    for (let k = text.length - 1; k >= 0 && text.charCodeAt(k) === 0x0a; k--) newlines++;
    this.trailingNewlines = newlines;
  }

  cellSeparator(): void {
    if (this.atLineStart) return;
    this.pendingSpace = true;
    this.write("|");
    this.pendingSpace = true;
  }

  private write(text: string): void {
    if (this.parts.length === 0) {
      this.wantedNewlines = 0;
    } else if (this.wantedNewlines > this.trailingNewlines) {
      this.parts.push("\n".repeat(this.wantedNewlines - this.trailingNewlines));
    } else if (this.pendingSpace && this.trailingNewlines === 0) {
      this.parts.push(" ");
    }
    if (this.prefix !== "") {
      this.parts.push(this.prefix);
      this.prefix = "";
    }
    this.parts.push(text);
    this.trailingNewlines = 0;
    this.wantedNewlines = 0;
    this.pendingSpace = false;
  }

  toString(): string {
    const text = this.parts.join("");
    // Collapsed text never ends a line with a space nor writes more than one blank line;
    // only <pre> text can. Trimmed per line rather than with /[ \t]+\n/, which is
    // quadratic on a long run of spaces.
    if (!this.wrotePreformatted) return text.trim();
    return text
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .replace(/^\n+/, "")
      .trimEnd(); // not trim(): a <pre> may begin with indentation that is part of its text
  }
}

interface RenderFrame {
  element: HtmlElement;
  /** inside one of the roots being written */
  inRoot: boolean;
  dropped: boolean;
  insideContent: boolean;
  preDepth: number;
  /** whether any child was seen yet (a newline right after <pre> is markup, not text) */
  hasChildren: boolean;
  /** the next number of an <ol> */
  counter: number;
}

/** The second walk: the text of the chosen roots (by ordinal). */
function renderText(
  html: string,
  roots: ReadonlySet<number>,
  formsWithProse: ReadonlySet<number>,
): string {
  const writer = new TextWriter();
  const frames: RenderFrame[] = [];
  walkHtmlElements(html, {
    enter(element, parent) {
      const up = frames[frames.length - 1];
      const { tag } = element;
      const isRoot = roots.has(element.ordinal);
      const inRoot = isRoot || up?.inRoot === true;
      const insideContent = up ? up.insideContent || isContentLandmark(parent) : false;
      const dropped =
        up?.dropped === true ||
        (inRoot && !isRoot && isDropped(element, insideContent, formsWithProse));
      if (up) up.hasChildren = true;
      const start = Number.parseInt(element.start ?? "", 10);
      frames.push({
        element,
        inRoot,
        dropped,
        insideContent,
        preDepth: (up?.preDepth ?? 0) + (tag === "pre" || tag === "listing" ? 1 : 0),
        hasChildren: false,
        counter: Number.isFinite(start) ? start : 1,
      });
      if (!inRoot || dropped) return;
      if (tag === "br") writer.lineBreak();
      else if (PARAGRAPHS.has(tag)) writer.block(2);
      else if (LINES.has(tag)) writer.block(1);
      if (tag === "li") {
        writer.listMarker(up?.element.tag === "ol" ? `${up.counter++}. ` : "- ");
      } else if (tag === "td" || tag === "th") {
        writer.cellSeparator();
      }
    },
    exit(element) {
      const frame = frames.pop();
      if (!frame?.inRoot || frame.dropped) return;
      if (PARAGRAPHS.has(element.tag)) writer.block(2);
      else if (LINES.has(element.tag)) writer.block(1);
    },
    text(text) {
      const frame = frames[frames.length - 1];
      if (!frame?.inRoot || frame.dropped) return;
      const first = !frame.hasChildren;
      frame.hasChildren = true;
      if (frame.preDepth === 0) writer.inline(text);
      else if (first && frame.element.tag === "pre")
        writer.preformatted(text.replace(/^\r?\n/, ""));
      else writer.preformatted(text);
    },
  });
  return writer.toString();
}
