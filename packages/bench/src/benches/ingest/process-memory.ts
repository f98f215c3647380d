import { readFile } from "node:fs/promises";
import { descendantProcesses, mb } from "@quarry/local-stack";

/** Resident set size of `pid` in bytes; undefined when it is gone. */
export async function rssOf(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return undefined;
  }
}

/** Resident memory of this process's descendants named `name` (the stack's workerd), by pid. */
export async function descendantRss(name: string): Promise<Map<number, number>> {
  const rss = new Map<number, number>();
  for (const p of await descendantProcesses()) {
    if (p.name !== name) continue;
    const bytes = await rssOf(p.pid);
    if (bytes !== undefined) rss.set(p.pid, bytes);
  }
  return rss;
}

/** Samples `descendantRss` until stopped; keeps the first and the peak reading per pid. */
export function sampleMemory(name: string, everyMs = 200) {
  const baseline = new Map<number, number>();
  const peak = new Map<number, number>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const [pid, bytes] of await descendantRss(name)) {
        if (!baseline.has(pid)) baseline.set(pid, bytes);
        peak.set(pid, Math.max(peak.get(pid) ?? 0, bytes));
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return [...peak].map(([pid, bytes]) => ({
        pid,
        baseline_mb: mb(baseline.get(pid) ?? 0),
        peak_mb: mb(bytes),
        growth_mb: mb(bytes - (baseline.get(pid) ?? 0)),
      }));
    },
  };
}
