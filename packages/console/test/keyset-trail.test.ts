import { describe, expect, it } from "vitest";
import {
  currentAfter,
  FIRST_PAGE,
  itemsBefore,
  nextPage,
  previousPage,
} from "../src/components/keyset-trail.ts";

describe("a walk through pages by after", () => {
  it("asks for each page after the last id of the one before, and back again", () => {
    const second = nextPage(FIRST_PAGE, 25);
    const third = nextPage(second, 61);
    expect([FIRST_PAGE, second, third].map(currentAfter)).toEqual([undefined, 25, 61]);
    expect([FIRST_PAGE, second, third].map((t) => itemsBefore(t, 25))).toEqual([0, 25, 50]);
    expect(currentAfter(previousPage(third))).toBe(25);
    expect(previousPage(previousPage(third))).toEqual(FIRST_PAGE);
  });

  it("stays on the first page when asked for the one before it", () => {
    expect(previousPage(FIRST_PAGE)).toBe(FIRST_PAGE);
    expect(currentAfter(previousPage(FIRST_PAGE))).toBeUndefined();
  });
});
