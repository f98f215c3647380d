import { describe, expect, it } from "vitest";
import { type Config, envSchema, vectorGraphOverrides } from "../src/env.ts";

/**
 * The deployment's choices for new datasets' graphs (VECTOR_GRAPH_M, _EF_CONSTRUCTION,
 * _ENCODING), as the worker validates them at its entry: only what is set goes over the model
 * family's (core `vectorGraphFor`), and a value outside what pgvector builds fails the
 * configuration, naming the variable.
 */
const graphVars = envSchema.pick({
  VECTOR_GRAPH_M: true,
  VECTOR_GRAPH_EF_CONSTRUCTION: true,
  VECTOR_GRAPH_ENCODING: true,
});

function overrides(vars: Record<string, string>) {
  return vectorGraphOverrides(graphVars.parse(vars) as Config);
}

describe("the graph settings of a deployment", () => {
  it("go over the family's only where set", () => {
    expect(overrides({})).toEqual({});
    expect(overrides({ VECTOR_GRAPH_M: "", VECTOR_GRAPH_ENCODING: "" })).toEqual({});
    expect(overrides({ VECTOR_GRAPH_ENCODING: "vector" })).toEqual({ encoding: "vector" });
    expect(
      overrides({
        VECTOR_GRAPH_M: "12",
        VECTOR_GRAPH_EF_CONSTRUCTION: "40",
        VECTOR_GRAPH_ENCODING: "halfvec",
      }),
    ).toEqual({ m: 12, efConstruction: 40, encoding: "halfvec" });
  });

  it.each([
    ["VECTOR_GRAPH_ENCODING", "float16"],
    ["VECTOR_GRAPH_ENCODING", "halfvec_unnormalized"],
    ["VECTOR_GRAPH_M", "1"],
    ["VECTOR_GRAPH_EF_CONSTRUCTION", "2000"],
  ])("refuse %s=%s, naming it", (name, value) => {
    const parsed = graphVars.safeParse({ [name]: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual([name]);
  });
});
