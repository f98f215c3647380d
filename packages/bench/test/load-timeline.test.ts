import { describe, expect, it } from "vitest";
import { LoadTimeline } from "../src/benches/load/timeline.ts";

describe("the load's timeline", () => {
  it("cuts the requests into windows, each with its own searches' p50 and the index it ended on", async () => {
    const timeline = new LoadTimeline(["e2_semantic", "e2_hybrid"], 1_000);
    for (const ms of [10, 30, 20]) timeline.record("e2_semantic", ms);
    timeline.record("e11_upsert", 500);
    timeline.record("e3", undefined);
    const first = await timeline.close(11_000, async () => {
      // finished while the index is read: counted in the next window
      timeline.record("e2_hybrid", 999);
      return { pending_rows: 1200, graph: "valid" };
    });
    expect(first).toEqual({
      at_s: 10,
      ok_per_s: 0.4,
      failed: 1,
      p50_ms: { e2_semantic: 20, e2_hybrid: null },
      pending_rows: 1200,
      graph: "valid",
    });

    // The next window starts empty: the first one's samples do not leak into it.
    timeline.record("e2_semantic", 150);
    timeline.record("e2_semantic", 170);
    const second = await timeline.close(16_000, async () => ({
      pending_rows: 38_000,
      graph: "missing",
    }));
    expect(second).toEqual({
      at_s: 15,
      ok_per_s: 0.6,
      failed: 0,
      p50_ms: { e2_semantic: 150, e2_hybrid: 999 },
      pending_rows: 38_000,
      graph: "missing",
    });
    expect(timeline.windows).toEqual([first, second]);
  });

  it("keeps a window in which nothing was answered, and one whose index could not be read", async () => {
    const timeline = new LoadTimeline(["e2_semantic"], 0);
    timeline.record("e2_semantic", undefined);
    const read = async () => ({ pending_rows: null, graph: null });
    expect(await timeline.close(10_000, read)).toEqual({
      at_s: 10,
      ok_per_s: 0,
      failed: 1,
      p50_ms: { e2_semantic: null },
      pending_rows: null,
      graph: null,
    });
    const failing = () => Promise.reject(new Error("GET /api/datasets/ds_1 → 503"));
    await expect(timeline.close(20_000, failing)).rejects.toThrow(/503/);
    expect(timeline.windows.at(-1)).toMatchObject({
      at_s: 20,
      ok_per_s: 0,
      failed: 0,
      pending_rows: null,
    });
  });
});
