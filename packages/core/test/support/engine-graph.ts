import type { VectorGraphParameters } from "../../src/index.ts";
import { testEngine } from "./database.ts";

/**
 * The precision a deployment on the test's engine gives new graphs: half on native, core's
 * default; full on PGlite, as `pnpm dev` sets it there (`VECTOR_GRAPH_ENCODING`), because in
 * WASM half precision made a graph insert ~5× as costly (the filtered-search test filling a
 * graph with 2,400 vectors took 32 s against 4.7). For tests that fill graphs with thousands of
 * vectors and are not about the encoding.
 */
export function engineGraph(): Pick<VectorGraphParameters, "encoding"> {
  return { encoding: testEngine() === "pglite" ? "vector" : "halfvec" };
}
