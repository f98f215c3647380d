import { decodeHTML as decodeHtmlEntities } from "entities";
import { describe, expect, it } from "vitest";
import { htmlToText } from "../../src/parsing/html-to-text.ts";

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Caf&eacute; guide &mdash; Example News</title>
  <style>body { font: 12px serif } p::after { content: "<p>not text</p>" }</style>
  <script>window.dataLayer = ["<div>not text</div>"]; if (a < b && c > d) {}</script>
</head>
<body>
  <a class="skip-link" href="#main">Skip to content</a>
  <header class="site-header"><a href="/">Example News</a><nav><ul><li><a>World</a></li><li><a>Sport</a></li></ul></nav></header>
  <div id="cookie-banner" class="banner">We use cookies. <button>Accept</button></div>
  <div class="layout">
    <aside class="sidebar"><h2>Trending</h2><ul><li>Something else</li></ul></aside>
    <main id="main">
      <article>
        <header><h1>The best   caf&eacute;s
          in town</h1><p class="byline">By Ann &amp; Bob</p></header>
        <p>Coffee is <em>serious</em> business&nbsp;here.</p>
        <p>Prices rose 5&#37; &ndash; from &pound;2 to &#xA3;2.10&hellip;</p>
        <figure><img src="x.jpg" alt="a cup"><figcaption>A flat white.</figcaption></figure>
        <footer>Tags: coffee, town</footer>
      </article>
      <section class="comments"><h2>Comments</h2><p>First!</p></section>
    </main>
  </div>
  <footer class="site-footer"><p>&copy; 2024 Example News</p></footer>
  <noscript>Enable JavaScript</noscript>
</body>
</html>`;

describe("htmlToText", () => {
  it("keeps the article and drops the page around it", () => {
    expect(htmlToText(PAGE)).toEqual({
      title: "Café guide — Example News",
      text: [
        "The best cafés in town",
        "By Ann & Bob",
        "Coffee is serious business here.",
        "Prices rose 5% – from £2 to £2.10…",
        "A flat white.",
      ].join("\n\n"),
    });
  });

  it("uses <main> when there is no article, then <body>", () => {
    const withMain = PAGE.replace("<article>", "<div>").replace("</article>", "</div>");
    expect(htmlToText(withMain).text).toBe(
      [
        "The best cafés in town",
        "By Ann & Bob",
        "Coffee is serious business here.",
        "Prices rose 5% – from £2 to £2.10…",
        "A flat white.",
        "Comments",
        "First!",
      ].join("\n\n"),
    );
    const bodyOnly = `<body><nav>Menu</nav><h1>Hello</h1><p>World</p><footer>bye</footer></body>`;
    expect(htmlToText(bodyOnly)).toEqual({ title: "Hello", text: "Hello\n\nWorld" });
  });

  it("takes every top-level article, in order, but not those in an aside", () => {
    const html = `<main><article><h2>One</h2><p>a</p></article><aside><article>Related</article></aside>
      <article><h2>Two</h2><article>nested reply</article></article></main>`;
    expect(htmlToText(html).text).toBe("One\n\na\n\nTwo\n\nnested reply");
  });

  it("falls through a content root with no text", () => {
    const html = `<body><article><img src="x.png"></article><div><p>The real text.</p></div></body>`;
    expect(htmlToText(html).text).toBe("The real text.");
  });

  it("lays out blocks: paragraphs, line breaks, lists, tables, pre", () => {
    const html = `<body>
      <h2>Steps</h2>
      <p>Line one<br>line two<br><br>after a blank line</p>
      <ul><li>apple<li>pear</ul>
      <ol start="3"><li>third</li><li><p>fourth</p></li></ol>
      <table><thead><tr><th>Name<th>Qty</thead><tbody><tr><td>Tea<td>2<tr><td>Milk<td>1</tbody></table>
      <pre>
  indented   code
    line &lt;2&gt;</pre>
      <div>a div</div><div>another <span>div</span></div>
      <blockquote>Quoted</blockquote>
    </body>`;
    expect(htmlToText(html).text).toBe(
      [
        "Steps",
        "Line one\nline two\n\nafter a blank line",
        "- apple\n- pear",
        "3. third\n\n4. fourth",
        "Name | Qty\nTea | 2\nMilk | 1",
        "  indented   code\n    line <2>",
        "a div\nanother div",
        "Quoted",
      ].join("\n\n"),
    );
  });

  it("collapses whitespace like a browser, across inline elements", () => {
    expect(htmlToText("<p>  a\n\t b<b> c </b>d<i>e</i>  </p>").text).toBe("a b c de");
    expect(htmlToText("<p>x&nbsp;&nbsp;y</p>").text).toBe("x y");
  });

  it("drops hidden elements, chrome by class or role, and prose-less forms", () => {
    const html = `<body>
      <div hidden>secret</div><div style="display: none">also hidden</div>
      <details><div hidden="until-found">found by search</div></details>
      <div role="navigation">nav by role</div><div role="contentinfo">footer by role</div>
      <ul class="breadcrumbs"><li>Home</li></ul>
      <div class="main-menu">menu</div><div class="sidebar-content">kept: sidebar content</div>
      <p class="nav">a paragraph is never chrome</p>
      <form action="/search"><input name="q"><button>Go</button><label>Search</label></form>
      <div class="canvas-wrapper">canvas is not nav</div>
    </body>`;
    expect(htmlToText(html).text).toBe(
      [
        "found by search",
        "kept: sidebar content",
        "",
        "a paragraph is never chrome",
        "",
        "canvas is not nav",
      ].join("\n"),
    );
  });

  it("keeps a page that an ASP.NET form wraps whole", () => {
    const html = `<body><form id="aspnetForm"><nav>Menu</nav><h1>Title</h1><p>Body text.</p><input type="submit"></form></body>`;
    expect(htmlToText(html).text).toBe("Title\n\nBody text.");
  });

  it("survives malformed markup without throwing", () => {
    expect(htmlToText("<p>unclosed <b>bold <i>both</p><p>next").text).toBe(
      "unclosed bold both\n\nnext",
    );
    // "<d, 1 <2>" is a start tag named "d," to a browser too; a lone "<" is text
    expect(htmlToText("a < b and c<d, 1 <2> 3").text).toBe("a < b and c 3");
    expect(htmlToText('<div class="x>broken attr</div><p>after</p>').text).toBe(
      "broken attr\n\nafter",
    );
    expect(htmlToText("<p>text</div></span></p></p>more").text).toBe("text\n\nmore");
    expect(htmlToText("<!-- unterminated comment <p>gone").text).toBe("");
    expect(htmlToText("<script>never closed <p>x</p>").text).toBe("");
    expect(htmlToText("</br>x<br/>y").text).toBe("x\ny");
    expect(htmlToText("").text).toBe("");
    expect(htmlToText("<html><head><title>T</title><body><p>head never closed</p>")).toEqual({
      title: "T",
      text: "head never closed",
    });
    expect(htmlToText("just text, no tags &amp; an entity").text).toBe(
      "just text, no tags & an entity",
    );
  });

  it("does not take an SVG title for the page's, nor attributes named like object keys", () => {
    const html = `<body><svg><title>icon</title></svg><h1 constructor="x" __proto__="y">Real</h1></body>`;
    expect(htmlToText(html)).toEqual({ title: "Real", text: "Real" });
  });

  it("is linear on a 5 MB page and on pathological nesting", () => {
    const block =
      "<div class='post'><h2>Heading</h2><p>Lorem ipsum dolor sit amet, <a href='#'>consectetur</a> &amp; adipiscing elit.</p></div>\n";
    const big = `<html><body><main>${block.repeat(Math.ceil(5_000_000 / block.length))}</main></body></html>`;
    expect(big.length).toBeGreaterThan(5_000_000);
    const result = htmlToText(big);
    expect(
      result.text.startsWith(
        "Heading\n\nLorem ipsum dolor sit amet, consectetur & adipiscing elit.\n\nHeading",
      ),
    ).toBe(true);

    const deep = `${"<div>".repeat(100_000)}deep${"</span>".repeat(100_000)}`;
    expect(htmlToText(deep).text).toBe("deep");
    expect(htmlToText(`<pre>${" ".repeat(1_000_000)}x</pre>`).text).toBe(
      `${" ".repeat(1_000_000)}x`,
    );
    expect(htmlToText("<".repeat(500_000)).text).toBe("<".repeat(500_000));
  });
});

describe("decodeHtmlEntities", () => {
  it("decodes named, numeric and legacy references", () => {
    expect(
      decodeHtmlEntities(
        "&amp; &lt; &gt; &quot; &apos; &#39; &nbsp; &mdash; &ndash; &hellip; &copy; &euro; &rarr; &alpha;",
      ),
    ).toBe("& < > \" ' ' \u00a0 — – … © € → α");
    expect(decodeHtmlEntities("&#x1F600; &#128512; &#150; &#0; &#xD800; &#x110000;")).toBe(
      "😀 😀 – \ufffd \ufffd \ufffd",
    );
    // without the semicolon only the legacy (Latin-1) names decode, as in browsers — and
    // a legacy name is decoded even where a longer unknown name follows: "&notaname;" reads
    // as "&not" + "aname;" (the WHATWG tokenizer's own example is "&notit;")
    expect(decodeHtmlEntities("&copy 2024 &amp &copy2024 &hellip &notaname; AT&T")).toBe(
      "© 2024 & ©2024 &hellip ¬aname; AT&T",
    );
    expect(decodeHtmlEntities("&zzzunknown; &hellipx;")).toBe("&zzzunknown; &hellipx;");
  });

  it("is what htmlToText applies to text, titles and attributes", () => {
    const references =
      "&amp; &lt; &gt; &quot; &apos; &#39; &mdash; &ndash; &hellip; &copy; &euro; &rarr; &alpha; " +
      "&#x1F600; &#128512; &#150; &#0; &#xD800; &#x110000; " +
      "&copy 2024 &amp &copy2024 &hellip &notaname; &zzzunknown; AT&T";
    const decoded = decodeHtmlEntities(references);
    expect(htmlToText(`<title>${references}</title><p>${references}</p>`)).toEqual({
      title: decoded,
      text: decoded,
    });
    // attribute values are decoded too: an entity cannot hide chrome
    expect(htmlToText(`<p>kept</p><div class="site&#45;nav">menu</div>`).text).toBe("kept");
  });

  it("decodes every HTML5 named reference, not only HTML 4's", () => {
    // ∳, ⪢ with a combining slash (two code points), and the "fj" ligature
    const html =
      "<title>&CounterClockwiseContourIntegral; &NotNestedGreaterGreater; &fjlig;</title>" +
      "<p>&CounterClockwiseContourIntegral; &NotNestedGreaterGreater; &fjlig; " +
      "&NotSquareSupersetEqual; &bigtriangledown; &LeftDownTeeVector;</p>";
    expect(htmlToText(html)).toEqual({
      title: "\u2233 \u2aa2\u0338 fj",
      text: "\u2233 \u2aa2\u0338 fj \u22e3 \u25bd \u2961",
    });
  });
});
