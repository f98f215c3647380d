import { describe, expect, it } from "vitest";
import { vectorLiteral } from "../src/rows/insert-rows.ts";

describe("vectorLiteral", () => {
  it("prints each component to 9 decimal places, without trailing zeros", () => {
    expect(
      vectorLiteral([0, 1, -1, 0.5, -0.25, 0.1234567894, 0.1234567896, 4e-10, -6e-10, 3.000000001]),
    ).toBe("[0,1,-1,0.5,-0.25,0.123456789,0.12345679,0,-0.000000001,3.000000001]");
    // Far outside any embedding's range the general printer keeps the value.
    expect(vectorLiteral([1e20, -12345678.5])).toBe("[100000000000000000000,-12345678.5]");
  });

  it("stays within half a nano of every component", () => {
    let state = 42;
    const values = Array.from({ length: 20_000 }, () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return (state / 2147483648 - 0.5) * 2 * (state % 3 === 0 ? 1e-4 : 1);
    });
    const printed = JSON.parse(vectorLiteral(values)) as number[];
    expect(printed).toHaveLength(values.length);
    for (const [i, v] of values.entries())
      expect(Math.abs(printed[i]! - v)).toBeLessThan(5.0001e-10);
  });
});
