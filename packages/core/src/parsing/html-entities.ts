/**
 * HTML character references: the 252 named entities of HTML 4 (every Latin-1 letter and
 * sign, Greek, typographic punctuation, arrows, maths) plus the HTML5 names seen in practice
 * (`&apos;`, `&hyphen;`, `&check;`…), and numeric references. The full HTML5 table has
 * 2,231 names; the rest (`&NotSquareSupersetEqual;`) are rare enough in prose that carrying
 * them in every Worker bundle is not worth it — an unknown name is left as written.
 */
const NAMED_TABLE =
  "Tab:9 NewLine:a excl:21 QUOT:22 quot:22 num:23 dollar:24 percnt:25 AMP:26 amp:26 " +
  "apos:27 lpar:28 rpar:29 ast:2a plus:2b comma:2c period:2e sol:2f colon:3a LT:3c lt:3c " +
  "equals:3d GT:3e gt:3e quest:3f commat:40 lsqb:5b bsol:5c rsqb:5d lowbar:5f grave:60 " +
  "lcub:7b verbar:7c rcub:7d nbsp:a0 iexcl:a1 cent:a2 pound:a3 curren:a4 yen:a5 brvbar:a6 " +
  "sect:a7 uml:a8 COPY:a9 copy:a9 ordf:aa laquo:ab not:ac shy:ad REG:ae reg:ae macr:af " +
  "deg:b0 plusmn:b1 sup2:b2 sup3:b3 acute:b4 micro:b5 para:b6 middot:b7 cedil:b8 sup1:b9 " +
  "ordm:ba raquo:bb frac14:bc frac12:bd half:bd frac34:be iquest:bf Agrave:c0 Aacute:c1 " +
  "Acirc:c2 Atilde:c3 Auml:c4 Aring:c5 AElig:c6 Ccedil:c7 Egrave:c8 Eacute:c9 Ecirc:ca " +
  "Euml:cb Igrave:cc Iacute:cd Icirc:ce Iuml:cf ETH:d0 Ntilde:d1 Ograve:d2 Oacute:d3 " +
  "Ocirc:d4 Otilde:d5 Ouml:d6 times:d7 Oslash:d8 Ugrave:d9 Uacute:da Ucirc:db Uuml:dc " +
  "Yacute:dd THORN:de szlig:df agrave:e0 aacute:e1 acirc:e2 atilde:e3 auml:e4 aring:e5 " +
  "aelig:e6 ccedil:e7 egrave:e8 eacute:e9 ecirc:ea euml:eb igrave:ec iacute:ed icirc:ee " +
  "iuml:ef eth:f0 ntilde:f1 ograve:f2 oacute:f3 ocirc:f4 otilde:f5 ouml:f6 divide:f7 " +
  "oslash:f8 ugrave:f9 uacute:fa ucirc:fb uuml:fc yacute:fd thorn:fe yuml:ff OElig:152 " +
  "oelig:153 Scaron:160 scaron:161 Yuml:178 fnof:192 circ:2c6 tilde:2dc Alpha:391 " +
  "Beta:392 Gamma:393 Delta:394 Epsilon:395 Zeta:396 Eta:397 Theta:398 Iota:399 Kappa:39a " +
  "Lambda:39b Mu:39c Nu:39d Xi:39e Omicron:39f Pi:3a0 Rho:3a1 Sigma:3a3 Tau:3a4 " +
  "Upsilon:3a5 Phi:3a6 Chi:3a7 Psi:3a8 Omega:3a9 alpha:3b1 beta:3b2 gamma:3b3 delta:3b4 " +
  "epsilon:3b5 zeta:3b6 eta:3b7 theta:3b8 iota:3b9 kappa:3ba lambda:3bb mu:3bc nu:3bd " +
  "xi:3be omicron:3bf pi:3c0 rho:3c1 sigmaf:3c2 sigma:3c3 tau:3c4 upsilon:3c5 phi:3c6 " +
  "chi:3c7 psi:3c8 omega:3c9 thetasym:3d1 upsih:3d2 piv:3d6 ensp:2002 emsp:2003 " +
  "thinsp:2009 ZeroWidthSpace:200b zwnj:200c zwj:200d lrm:200e rlm:200f dash:2010 " +
  "hyphen:2010 ndash:2013 mdash:2014 lsquo:2018 rsquo:2019 sbquo:201a ldquo:201c " +
  "rdquo:201d bdquo:201e dagger:2020 Dagger:2021 bull:2022 hellip:2026 permil:2030 " +
  "prime:2032 Prime:2033 lsaquo:2039 rsaquo:203a oline:203e frasl:2044 euro:20ac " +
  "image:2111 weierp:2118 real:211c TRADE:2122 trade:2122 alefsym:2135 frac13:2153 " +
  "frac23:2154 larr:2190 uarr:2191 rarr:2192 darr:2193 harr:2194 crarr:21b5 lArr:21d0 " +
  "uArr:21d1 rArr:21d2 dArr:21d3 hArr:21d4 forall:2200 part:2202 exist:2203 empty:2205 " +
  "nabla:2207 isin:2208 notin:2209 ni:220b prod:220f sum:2211 minus:2212 lowast:2217 " +
  "radic:221a prop:221d infin:221e ang:2220 and:2227 or:2228 cap:2229 cup:222a int:222b " +
  "there4:2234 sim:223c cong:2245 asymp:2248 ne:2260 equiv:2261 le:2264 ge:2265 sub:2282 " +
  "sup:2283 nsub:2284 sube:2286 supe:2287 oplus:2295 otimes:2297 perp:22a5 sdot:22c5 " +
  "lceil:2308 rceil:2309 lfloor:230a rfloor:230b loz:25ca starf:2605 star:2606 " +
  "spades:2660 clubs:2663 hearts:2665 diams:2666 check:2713 cross:2717 lang:27e8 " +
  "rang:27e9";

const NAMED: ReadonlyMap<string, string> = new Map(
  NAMED_TABLE.split(" ").map((entry) => {
    const [name, hex] = entry.split(":") as [string, string];
    return [name, String.fromCodePoint(Number.parseInt(hex, 16))];
  }),
);

/**
 * Names a browser still decodes without the semicolon (`&copy 2024`, `AT&T`'s neighbours):
 * HTML5 keeps this for the Latin-1 names only, so `&hellip` without `;` stays as written.
 */
function isLegacyName(name: string, value: string): boolean {
  return value.charCodeAt(0) <= 0xff && name !== "apos" && name.length > 1;
}

/**
 * C1 controls in numeric references mean windows-1252 characters (`&#150;` is an en dash):
 * the mapping every browser applies.
 */
const WINDOWS_1252_C1 =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

/** Bounded quantifiers only: one pass, no backtracking blow-up on long runs of `&`. */
const REFERENCE = /&(?:#([0-9]{1,8})|#[xX]([0-9a-fA-F]{1,8})|([A-Za-z][A-Za-z0-9]{1,31}))(;?)/g;

/** Decodes character references in text; anything that is not one is left as written. */
export function decodeHtmlEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (match, decimal, hex, name, semicolon) => {
    if (name === undefined) return codePoint(Number.parseInt(decimal ?? hex, decimal ? 10 : 16));
    const value = NAMED.get(name);
    if (value !== undefined && (semicolon || isLegacyName(name, value))) return value;
    if (semicolon) return match;
    // "&copy2024": browsers decode the longest legacy name at the start.
    for (let length = Math.min(name.length - 1, 6); length >= 2; length--) {
      const prefix = name.slice(0, length);
      const legacy = NAMED.get(prefix);
      if (legacy !== undefined && isLegacyName(prefix, legacy)) return legacy + name.slice(length);
    }
    return match;
  });
}

function codePoint(code: number): string {
  if (code >= 0x80 && code <= 0x9f) return WINDOWS_1252_C1.charAt(code - 0x80);
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
  return String.fromCodePoint(code);
}
