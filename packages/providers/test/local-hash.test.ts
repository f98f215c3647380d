import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createEmbedder, embeddingDimensions, LocalHashEmbedder } from "../src/index.ts";
import { cosine, norm } from "./support/vectors.ts";

const embedder = createEmbedder("local/hash", {});

async function embedOne(text: string): Promise<number[]> {
  const [vector] = await embedder.embed([text]);
  return vector!;
}

describe("local/hash", () => {
  it("is 384-dimensional, unit-norm and deterministic across instances", async () => {
    const texts = ["Quarry stores text datasets.", "A second, different text!"];
    const first = await embedder.embed(texts);
    const second = await new LocalHashEmbedder().embed(texts);
    expect(embedder.modelId).toBe("local/hash");
    expect(embedder.dimensions).toBe(384);
    expect(embeddingDimensions("local/hash")).toBe(384);
    expect(first).toEqual(second);
    for (const vector of first) {
      expect(vector).toHaveLength(384);
      expect(norm(vector)).toBeCloseTo(1, 10);
    }
    expect(first[0]).not.toEqual(first[1]);
  });

  it("gives similar texts a high cosine and unrelated ones a low one", async () => {
    const fox = await embedOne("The quick brown fox jumps over the lazy dog");
    const foxAgain = await embedOne("A quick brown fox jumped over a lazy dog");
    const revenue = await embedOne("Quarterly revenue grew by 12 percent in Europe");
    const password = await embedOne("How do I reset my password?");
    const resetting = await embedOne("Resetting your password: step by step");

    expect(cosine(fox, foxAgain)).toBeGreaterThan(0.5);
    expect(Math.abs(cosine(fox, revenue))).toBeLessThan(0.2);
    expect(cosine(password, resetting)).toBeGreaterThan(cosine(password, revenue) + 0.1);
  });

  it("ignores case, punctuation and full-width forms", async () => {
    const plain = await embedOne("hello world");
    expect(await embedOne("HELLO, World!!")).toEqual(plain);
    expect(cosine(await embedOne("ｈｅｌｌｏ ｗｏｒｌｄ"), plain)).toBeCloseTo(1, 10);
  });

  it("maps texts without words to the fixed unit vector e0", async () => {
    const [empty, blank, punctuation] = await embedder.embed(["", "   \n", "?!… --"]);
    const e0 = Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0));
    expect(empty).toEqual(e0);
    expect(blank).toEqual(e0);
    expect(punctuation).toEqual(e0);
  });

  it("gives CJK text non-trivial vectors that reflect shared characters", async () => {
    const apples = await embedOne("我喜欢吃苹果和香蕉");
    const applesOnly = await embedOne("我喜欢吃苹果");
    const weather = await embedOne("今天天气很好，我们去公园散步");
    const japanese = await embedOne("東京は日本の首都です");

    for (const vector of [apples, applesOnly, weather, japanese]) {
      expect(norm(vector)).toBeCloseTo(1, 10);
      // Spread over many dimensions, not collapsed onto e0 or a handful of buckets.
      expect(vector.filter((x) => x !== 0).length).toBeGreaterThan(5);
    }
    expect(cosine(apples, applesOnly)).toBeGreaterThan(0.3);
    expect(cosine(apples, applesOnly)).toBeGreaterThan(cosine(apples, weather) + 0.2);
  });

  it("gives the vectors it always gave: stored datasets were embedded with them", async () => {
    // Both tokenizers (ASCII by character code, the rest by Unicode class), edge cases of
    // each. The digest is of the vectors the first implementation gave; a change to the
    // features, their weights or their order changes it, and would leave every stored
    // `local/hash` dataset searched with vectors unlike its rows'.
    const texts = [
      "The quick brown fox jumps over the lazy dog.",
      "Release 2.0.1 shipped 42 fixes in 2024 (build 7b3f9), see docs/CHANGES_v2.md#L10",
      "HELLO, World!! 42 apples; 3.14159 pies — and an e-mail: someone@example.com",
      "Ça va? Naïve café, façade, Ångström, Straße, İstanbul",
      "我喜欢吃苹果和香蕉。東京は日本の首都です",
      "हिन्दी भाषा में लिखा गया वाक्य",
      "emoji 🙂 and symbols © ® ™ ½ ① ｆｕｌｌ-width",
      "a",
      "",
      "   \n\t ",
      "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
      "x".repeat(3000),
      "word ".repeat(400),
    ];
    const vectors = await embedder.embed(texts);
    const digest = createHash("sha256").update(JSON.stringify(vectors)).digest("hex");
    expect(digest).toBe("faf664d2f271f209bb5cd1ab3295c5d8ac824d175c1ac128c47b4fa950b1e9c1");
  });

  it("hashes into another size when asked", async () => {
    const small = createEmbedder("local/hash", {}, { dimensions: 64 });
    const [vector] = await small.embed(["sixty-four dimensions"]);
    expect(small.dimensions).toBe(64);
    expect(vector).toHaveLength(64);
    expect(norm(vector!)).toBeCloseTo(1, 10);
  });

  it("returns nothing for nothing and honours an aborted signal", async () => {
    expect(await embedder.embed([])).toEqual([]);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(embedder.embed(["x"], { signal: controller.signal })).rejects.toThrow("stop");
  });
});
