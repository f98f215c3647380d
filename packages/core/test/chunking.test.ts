import { describe, expect, it } from "vitest";
import { chunkText, validateChunkOptions } from "../src/chunking/chunk-text.ts";

/** A small deterministic PRNG so a failing case can be replayed from its seed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "δέλτα",
  "東京",
  "naïve",
  "x",
  "supercalifragilistic",
  "😀",
  "e=mc²",
  "a.b",
  "end.",
];

function randomText(random: () => number): string {
  const parts: string[] = [];
  const length = Math.floor(random() * 400);
  for (let i = 0; i < length; i++) {
    const r = random();
    if (r < 0.05) parts.push("\n\n");
    else if (r < 0.12) parts.push(". ");
    else if (r < 0.15) parts.push("\n");
    else if (r < 0.17) parts.push("   ");
    else if (r < 0.19) parts.push("x".repeat(Math.floor(random() * 300)));
    else parts.push(`${WORDS[Math.floor(random() * WORDS.length)]} `);
  }
  return parts.join("");
}

describe("chunkText properties over 500 random texts", () => {
  for (let seed = 1; seed <= 500; seed++) {
    const random = rng(seed);
    const text = randomText(random);
    const chunkSize = 1 + Math.floor(random() * 300);
    const chunkOverlap = Math.floor(random() * chunkSize);
    it(`seed ${seed}: size ${chunkSize}, overlap ${chunkOverlap}`, () => {
      const chunks = chunkText(text, { chunkSize, chunkOverlap });
      const covered = new Uint8Array(text.length);
      chunks.forEach((chunk, i) => {
        expect(chunk.end - chunk.start).toBeLessThanOrEqual(chunkSize);
        expect(chunk.text.length).toBeGreaterThan(0);
        expect(chunk.text).toBe(text.slice(chunk.start, chunk.end).trim());
        if (chunkSize > 1) expect(chunk.text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
        for (let j = chunk.start; j < chunk.end; j++) covered[j] = 1;
        const previous = chunks[i - 1];
        if (previous) {
          expect(chunk.start).toBeGreaterThan(previous.start);
          expect(Math.max(0, previous.end - chunk.start)).toBeLessThanOrEqual(chunkOverlap);
        }
      });
      for (let j = 0; j < text.length; j++) {
        if (!/\s/.test(text[j]!)) expect(covered[j], `character ${j} is in no chunk`).toBe(1);
      }
    });
  }
});

describe("chunk boundaries", () => {
  it("prefers paragraph breaks, then sentences, then words", () => {
    const para = `${"word ".repeat(30)}\n\n${"next ".repeat(30)}`;
    expect(chunkText(para, { chunkSize: 200, chunkOverlap: 0 })[0]!.text).toBe(
      "word ".repeat(30).trim(),
    );
    const sentences = "One sentence here. Another sentence follows it. And a third one ends";
    expect(chunkText(sentences, { chunkSize: 50, chunkOverlap: 0 })[0]!.text).toBe(
      "One sentence here. Another sentence follows it.",
    );
    const words = "lorem ipsum dolor sit amet consectetur";
    expect(chunkText(words, { chunkSize: 15, chunkOverlap: 0 }).map((c) => c.text)).toEqual([
      "lorem ipsum",
      "dolor sit amet",
      "consectetur",
    ]);
  });

  it("overlaps from a word start", () => {
    const chunks = chunkText("aaa bbb ccc ddd eee fff ggg", { chunkSize: 12, chunkOverlap: 5 });
    expect(chunks.map((c) => c.text)).toEqual(["aaa bbb ccc", "ccc ddd eee", "eee fff ggg"]);
  });

  it("returns nothing for empty or blank input", () => {
    expect(chunkText("", { chunkSize: 10, chunkOverlap: 0 })).toEqual([]);
    expect(chunkText(" \n\n\t ", { chunkSize: 10, chunkOverlap: 0 })).toEqual([]);
  });
});

describe("chunk options", () => {
  it("defaults to 1000/100", () => {
    expect(validateChunkOptions({}, "standard")).toEqual({ chunkSize: 1000, chunkOverlap: 100 });
  });
  it.each([
    [{ chunkSize: 2001 }, "hybrid", "chunk_size"],
    [{ chunkSize: 5001 }, "standard", "chunk_size"],
    [{ chunkSize: 0 }, "standard", "chunk_size"],
    [{ chunkSize: 1.5 }, "standard", "chunk_size"],
    [{ chunkSize: 100, chunkOverlap: 100 }, "standard", "chunk_overlap"],
    [{ chunkOverlap: -1 }, "standard", "chunk_overlap"],
  ] as const)("rejects %j on %s datasets", (options, kind, path) => {
    expect(() => validateChunkOptions(options, kind)).toThrow(expect.objectContaining({ path }));
  });
  it("accepts the per-kind maximum", () => {
    expect(validateChunkOptions({ chunkSize: 2000 }, "hybrid").chunkSize).toBe(2000);
    expect(validateChunkOptions({ chunkSize: 5000 }, "standard").chunkSize).toBe(5000);
  });
});
