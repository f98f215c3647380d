import { describe, expect, it } from "vitest";
import { evenlySpaced, matchedConfidences, summarizeExact } from "../src/benches/rebuild/exact.ts";
import { PhaseLog, phaseOf } from "../src/benches/rebuild/phases.ts";

describe("the phase of a bulk rebuild, from GET dataset's vector_index", () => {
  it("reads the new head: the serving graph stays valid while `rebuilding`", () => {
    expect(phaseOf({ pending_rows: 40_000, graph: "valid", rebuilding: false })).toBe("backlog");
    expect(phaseOf({ pending_rows: 40_000, graph: "valid", rebuilding: true })).toBe("rebuilding");
    // moved in for the next graph or not, a build under way is the build
    expect(phaseOf({ pending_rows: 0, graph: "valid", rebuilding: true })).toBe("rebuilding");
    expect(phaseOf({ pending_rows: 0, graph: "valid", rebuilding: false })).toBe("after");
  });

  it("reads the old head, which has no `rebuilding`: the graph itself is not valid", () => {
    expect(phaseOf({ pending_rows: 40_000, graph: "valid" })).toBe("backlog");
    expect(phaseOf({ pending_rows: 0, graph: "building" })).toBe("rebuilding");
    expect(phaseOf({ pending_rows: 40_000, graph: "missing" })).toBe("rebuilding");
    expect(phaseOf({ pending_rows: 0, graph: "invalid" })).toBe("rebuilding");
    expect(phaseOf({ pending_rows: 0, graph: "valid" })).toBe("after");
  });
});

describe("the phase log", () => {
  it("counts each query in the phase of the latest reading, and each phase's duration", () => {
    const log = new PhaseLog(1_000);
    log.read({ pending_rows: 30_000, graph: "valid", ef_search: 40 }, 1_000);
    log.record(50);
    log.record(70, false);
    log.read({ pending_rows: 30_000, graph: "building" }, 3_000);
    log.record(400);
    log.record(undefined);
    // the same phase read again: one stretch, not two
    log.read({ pending_rows: 0, graph: "missing" }, 5_000);
    log.record(600);
    log.read({ pending_rows: 0, graph: "valid", ef_search: 48 }, 11_000);
    log.record(9);

    expect(log.phase).toBe("after");
    expect(log.answered("rebuilding")).toBe(2);
    expect(log.rebuildingReported).toBe(false);
    const report = log.report(12_000);
    expect(report.backlog).toMatchObject({
      from_s: 0,
      seconds: 2,
      failed: 0,
      incomplete: 1,
      graph_states: ["valid"],
      ef_search: [40],
    });
    expect(report.backlog?.latency_ms).toMatchObject({ count: 2, p50: 50, max: 70 });
    expect(report.rebuilding).toMatchObject({
      from_s: 2,
      seconds: 8,
      failed: 1,
      incomplete: 0,
      graph_states: ["building", "missing"],
      ef_search: [],
    });
    expect(report.rebuilding?.latency_ms).toMatchObject({ count: 2, p50: 400, p95: 600 });
    // the current phase lasts until the report
    expect(report.after).toMatchObject({ from_s: 10, seconds: 1 });
    expect(log.changes.map((c) => [c.phase, c.at_s, c.graph])).toEqual([
      ["backlog", 0, "valid"],
      ["rebuilding", 2, "building"],
      ["after", 10, "valid"],
    ]);
  });

  it("sums a phase's stretches when it comes back, and leaves unseen phases null", () => {
    const log = new PhaseLog(0);
    log.read({ pending_rows: 0, graph: "valid", rebuilding: true }, 0);
    log.read({ pending_rows: 20, graph: "valid", rebuilding: false }, 4_000);
    log.read({ pending_rows: 20, graph: "valid", rebuilding: true }, 5_000);
    log.record(30);
    const report = log.report(7_000);
    expect(report.rebuilding).toMatchObject({ from_s: 0, seconds: 6, graph_states: ["valid"] });
    expect(report.backlog).toMatchObject({ seconds: 1, latency_ms: null });
    expect(report.after).toBeNull();
    expect(log.rebuildingReported).toBe(true);
  });

  it("refuses a query before the first reading", () => {
    expect(() => new PhaseLog(0).record(10)).toThrow(/before any reading/);
  });
});

describe("E2's top-10 against the exact ranking, by confidences", () => {
  const exact = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5, 0.5, 0.5, 0.4, 0.3];

  it("matches the exact top-10 in any order, ties whichever rows they are", () => {
    expect(matchedConfidences([...exact].reverse(), exact)).toBe(10);
    // a float4 ulp apart: the same row
    expect(matchedConfidences([0.9 + 3e-7, ...exact.slice(1)], exact)).toBe(10);
  });

  it("counts each exact confidence once, and misses a nearer row the graph did not find", () => {
    // two replies of the same tie where the exact ranking has one, and 0.9 missing
    const got = [0.8, 0.8, 0.8, 0.7, 0.6, 0.5, 0.5, 0.5, 0.4, 0.3];
    expect(matchedConfidences(got, exact)).toBe(9);
    expect(matchedConfidences([0.9, 0.8], exact)).toBe(2);
    expect(matchedConfidences([0.9001, 0.8], exact)).toBe(1);
  });

  it("summarizes the checks: whole top-10s and the share of confidences found", () => {
    expect(
      summarizeExact([
        { matched: 10, of: 10 },
        { matched: 9, of: 10 },
        { matched: 10, of: 10 },
        { matched: 7, of: 10 },
      ]),
    ).toEqual({ checked: 4, exact_share: 0.5, recall: 0.9 });
    expect(summarizeExact([])).toBeNull();
  });

  it("spreads the checked replies evenly over a phase", () => {
    const items = Array.from({ length: 10 }, (_, i) => i);
    expect(evenlySpaced(items, 4)).toEqual([0, 2, 5, 7]);
    expect(evenlySpaced(items, 20)).toEqual(items);
  });
});
