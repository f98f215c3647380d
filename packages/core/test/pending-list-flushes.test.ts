import { describe, expect, it } from "vitest";
import { PendingListFlushes, textCharacters } from "../src/index.ts";

describe("PendingListFlushes", () => {
  it("is due each time the text written since the last time reaches the count", () => {
    const flushes = new PendingListFlushes(1_000);
    expect([400, 500, 100, 999, 1, 5_000, 0].map((n) => flushes.wrote(n))).toEqual([
      false,
      false,
      true,
      false,
      true,
      true,
      false,
    ]);
  });

  it("is never due with a count of 0", () => {
    const flushes = new PendingListFlushes(0);
    expect(flushes.wrote(10_000_000)).toBe(false);
  });

  it("counts the characters of every data value, of rows with and without data", () => {
    expect(textCharacters([{ data: { text: "abc", title: "de" } }, {}, { data: {} }])).toBe(5);
  });
});
