import { describe, expect, it } from "vitest";
import { TUNING_VARS, tuningVars } from "../src/tuning-vars.ts";

describe("the indexing settings pnpm dev and the benchmarks hand to the workers", () => {
  it("are the listed ones the environment sets, and nothing else", () => {
    expect(
      tuningVars({
        VECTOR_GRAPH_BULK_MIN_ROWS: "0",
        VECTOR_GRAPH_M: "24",
        VECTOR_GRAPH_EF_CONSTRUCTION: "",
        DATABASE_URL: "postgres://x",
        PATH: "/usr/bin",
      }),
    ).toEqual({ VECTOR_GRAPH_BULK_MIN_ROWS: "0", VECTOR_GRAPH_M: "24" });
    expect(tuningVars({})).toEqual({});
    expect(TUNING_VARS).toContain("VECTOR_GRAPH_EF_CONSTRUCTION");
  });
});
