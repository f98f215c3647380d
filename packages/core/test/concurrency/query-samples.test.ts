import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  calibrateEfSearch,
  createDataset,
  deleteDataset,
  indexVectorBacklog,
  recordQuerySample,
  upsertRows,
} from "../../src/index.ts";
import { useNativeSuite } from "../support/native-suite.ts";
import { noFiles } from "../support/no-files.ts";
import { createTenant } from "../support/tenant.ts";

/**
 * Query samples (packages/db/CONCURRENCY.md#query-samples) are written by searches after their
 * reply, from any number of isolates at once, while the dataset may be deleted: samples and
 * the deletion must neither deadlock nor leave a sample of a dataset that is gone.
 */

const suite = useNativeSuite();

const SAMPLERS = 6;

function unitVector(seed: number, dimensions: number): number[] {
  const v = Array.from({ length: dimensions }, (_, i) => Math.sin(seed * 31 + i * 7));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

describe("query samples on native PostgreSQL", () => {
  it("race the dataset's deletion and calibration: no deadlock, no sample left behind", async () => {
    const { ctx } = await createTenant(suite.fresh.db, "samples");
    const dataset = await createDataset(
      ctx,
      { name: "sampled", dimensions: 16 },
      { embeddingModel: "local/hash" },
    );
    await upsertRows(ctx, dataset.id, {
      document_id: "d",
      rows: Array.from({ length: 50 }, (_, i) => ({ data: { text: `comet ${i} tide` } })),
    });
    await indexVectorBacklog(suite.fresh.db, dataset.id, 50);

    let deleted = false;
    const failures: string[] = [];
    const stored: number[] = [];
    const sampler = async (n: number) => {
      const { db } = suite.connect(1);
      let kept = 0;
      // Until a little after the deletion committed: every later sample must fail.
      for (let i = 0; !deleted || i % 20 !== 0; i++) {
        try {
          await recordQuerySample(db, dataset, unitVector(n * 1000 + i, 16));
          if (deleted) failures.push("a sample was stored after the deletion");
          kept++;
        } catch (error) {
          const code = (error as { cause?: { code?: string }; code?: string }).cause?.code;
          // 23503: the dataset is gone (foreign key); anything else is a failure
          if (code !== "23503") failures.push(`${code}: ${(error as Error).message}`);
        }
      }
      stored.push(kept);
    };
    const samplers = Array.from({ length: SAMPLERS }, (_, n) => sampler(n));
    // Calibrations read the samples meanwhile (forced: the dataset is small).
    const { db: calibrating } = suite.connect(1);
    const calibrationErrors: string[] = [];
    const calibrations = (async () => {
      while (!deleted) {
        try {
          await calibrateEfSearch({ ...ctx, db: calibrating }, dataset.id, { force: true });
        } catch (error) {
          const cause = (error as { cause?: { code?: string; message?: string } }).cause;
          calibrationErrors.push(`${cause?.code}: ${cause?.message ?? (error as Error).message}`);
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 400));
    try {
      await deleteDataset(ctx, dataset.id, noFiles);
    } finally {
      deleted = true;
    }
    await Promise.all([...samplers, calibrations]);

    expect(failures).toEqual([]);
    expect(calibrationErrors).toEqual([]);
    expect(stored.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    const left = await suite.fresh.db.execute(
      sql`SELECT count(*)::int AS n FROM search_query_samples WHERE dataset_id = ${dataset.id}`,
    );
    expect((left as unknown as { rows: { n: number }[] }).rows[0]?.n).toBe(0);
  });
});
