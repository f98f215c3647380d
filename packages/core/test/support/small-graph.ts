import type { VectorGraphParameters } from "../../src/index.ts";

/**
 * The graph `pnpm dev` grows on PGlite (16 / 64, full precision), for tests that fill a graph
 * with thousands of vectors. The local family's default (24 / 256) costs PGlite about twice as
 * much to link each vector: the ingestion test's 16,000 took ~230 s of its 300 s budget on a
 * slow day.
 * Those tests are about what reaches the graph, not about how densely it is linked.
 */
export const SMALL_GRAPH: VectorGraphParameters = { m: 16, efConstruction: 64, encoding: "vector" };
