import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { scaledVectorSql, scaleVectors } from "../src/rows/vector-transfer.ts";
import { useFreshDatabase } from "./support/database.ts";

const database = useFreshDatabase();

/** What pgvector stores for each vector, sent the scaled-integer way. */
async function stored(
  vectors: (number[] | null)[],
  dimensions: number,
): Promise<(number[] | null)[]> {
  const scaled = scaleVectors(vectors);
  const result = (await database.db.execute(sql`
    select ${scaledVectorSql(sql`v.i`, scaled.exponent, dimensions)}::text as vector
    from jsonb_array_elements_text(${JSON.stringify(scaled.integers)}::jsonb) with ordinality v(i, n)
    order by v.n`)) as unknown as { rows: { vector: string | null }[] };
  // jsonb_array_elements_text turns JSON null into SQL null, which stays null through the cast.
  return result.rows.map((r) => (r.vector === null ? null : (JSON.parse(r.vector) as number[])));
}

/** Distance in float4 steps between two float4 values of the same sign. */
function ulps(a: number, b: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat32(0, a);
  view.setFloat32(4, b);
  return Math.abs(view.getInt32(0) - view.getInt32(4));
}

function seeded(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function normalised(random: () => number, dimensions: number): number[] {
  const v = Array.from({ length: dimensions }, () => random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe("embeddings sent as scaled integers", () => {
  it("store the float4 nearest each component, to within one ulp", async () => {
    const random = seeded(7);
    const vectors = Array.from({ length: 50 }, () => normalised(random, 384));
    vectors.push(vectors[0]!.map((x, i) => (i % 3 === 0 ? 0 : x * 1e-3))); // sparse, small
    const back = await stored(vectors, 384);
    const largest = Math.max(...vectors.flat().map(Math.abs));
    let compared = 0;
    for (const [n, vector] of vectors.entries()) {
      const got = back[n]!;
      expect(got).toHaveLength(384);
      for (const [i, x] of vector.entries()) {
        const want = Math.fround(x);
        if (Math.abs(x) >= largest / 64) {
          expect(
            ulps(got[i]!, want),
            `vector ${n}[${i}] = ${x} came back ${got[i]}`,
          ).toBeLessThanOrEqual(1);
          compared++;
        } else {
          expect(Math.abs(got[i]! - want)).toBeLessThanOrEqual(largest * 2 ** -30);
        }
      }
    }
    expect(compared).toBeGreaterThan(5000);
  });

  it("keep nulls, zero vectors and components far from 1", async () => {
    const vectors = [null, [0, 0, 0], [1e6, -2.5e5, 3], [1e-20, -3e-21, 0]];
    const back = await stored(vectors, 3);
    expect(back[0]).toBeNull();
    expect(back[1]).toEqual([0, 0, 0]);
    // One exponent per batch: the 1e6 component sets it, so 3 survives to 2^-10 and the
    // tiny vector rounds to zero. Batches are one dataset's model, whose scales agree.
    expect(back[2]![0]).toBe(1e6);
    expect(back[2]![1]).toBe(-2.5e5);
    expect(Math.abs(back[2]![2]! - 3)).toBeLessThanOrEqual(2 ** -9);
    // pgvector prints a float4 by its shortest text; read back as float4 it is exact.
    const [tiny] = await stored([[1e-20, -3e-21, 0]], 3);
    expect(tiny!.map(Math.fround)).toEqual([Math.fround(1e-20), Math.fround(-3e-21), 0]);
  });

  it("pick the exponent that keeps the largest component within 30 bits", () => {
    for (const largest of [1, 0.5, 0.75, 2 ** -10, 3, 1024, 1023.999]) {
      const { exponent, integers } = scaleVectors([[largest, -largest / 3]]);
      const first = Number(integers[0]!.slice(1).split(",")[0]);
      expect(first).toBeLessThan(2 ** 30);
      expect(first).toBeGreaterThanOrEqual(2 ** 29);
      expect(first / 2 ** exponent).toBeCloseTo(largest, 6);
    }
    expect(scaleVectors([null, null])).toEqual({ exponent: 0, integers: [null, null] });
  });

  it("write each component as the integer nearest it times 2^exponent, in decimal", () => {
    const random = seeded(11);
    const vectors = Array.from({ length: 20 }, () => normalised(random, 384));
    // zeros, negative zero, a component that rounds to zero, exact halves, one-digit values
    vectors.push([0, -0, 1e-12, -1e-12, 0.5, -0.5, 1, -1, 2 ** -29, -(2 ** -29), 2 ** -30]);
    const { exponent, integers } = scaleVectors(vectors);
    for (const [n, vector] of vectors.entries()) {
      const decimal = vector.map((x) => String(Math.round(x * 2 ** exponent)));
      expect(integers[n]).toBe(`{${decimal.join(",")}}`);
    }
  });

  it("refuse components no float4 holds", () => {
    expect(() => scaleVectors([[0.1, Number.NaN]])).toThrow(/NaN/);
    expect(() => scaleVectors([[Number.POSITIVE_INFINITY]])).toThrow(/Infinity/);
    expect(() => scaleVectors([[1e300]])).toThrow(/beyond what float4 stores/);
  });
});
