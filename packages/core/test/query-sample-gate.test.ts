import { describe, expect, it } from "vitest";
import { QuerySampleGate } from "../src/index.ts";

describe("QuerySampleGate", () => {
  it("lets one search a dataset record its query per spacing, each dataset on its own", () => {
    let now = 1_000;
    const gate = new QuerySampleGate(200, () => now);
    expect(gate.claim("a")).toBe(true);
    expect(gate.claim("a")).toBe(false);
    expect(gate.claim("b")).toBe(true);
    now += 199;
    expect(gate.claim("a")).toBe(false);
    now += 1;
    expect(gate.claim("a")).toBe(true);
    expect(gate.claim("b")).toBe(true);
  });

  it("forgets datasets past their spacing when full, and keeps gating the others", () => {
    let now = 0;
    const gate = new QuerySampleGate(100, () => now, 2);
    expect(gate.claim("a")).toBe(true);
    now = 150;
    expect(gate.claim("b")).toBe(true);
    // full: "a" is past its spacing and is forgotten to make room; "b" is not
    expect(gate.claim("c")).toBe(true);
    expect(gate.claim("b")).toBe(false);
    expect(gate.claim("c")).toBe(false);
  });
});
