import { descendantProcesses, mb } from "@quarry/local-stack";
import { BENCH_PROCESS_ROLE, descendantRoles } from "../../harness/process-roles.ts";
import { rssOf } from "../ingest/process-memory.ts";

/**
 * Resident memory of the processes a load run involves, at its start, its peak and its end:
 * this process (which hosts PGlite and the loopback Postgres server when the stack is ours)
 * and its descendants (the `wrangler dev` Node process and its workerd children, which run
 * both workers). Against a running stack (`BASE`) only this process is ours to see.
 */
export interface ProcessMemoryReport {
  pid: number;
  ppid: number;
  name: string;
  role: string;
  start_mb: number | null;
  peak_mb: number;
  end_mb: number | null;
  growth_mb: number | null;
}

interface Reading {
  pid: number;
  ppid: number;
  name: string;
  role: string;
  bytes: number;
}

async function readAll(): Promise<Reading[]> {
  const self: Reading = {
    pid: process.pid,
    ppid: process.ppid,
    name: "node",
    role: BENCH_PROCESS_ROLE,
    bytes: process.memoryUsage().rss,
  };
  const readings = [self];
  const descendants = await descendantProcesses();
  const roles = await descendantRoles(descendants);
  for (const p of descendants) {
    const bytes = await rssOf(p.pid);
    if (bytes === undefined) continue;
    readings.push({
      pid: p.pid,
      ppid: p.ppid,
      name: p.name,
      role: roles.get(p.pid) ?? p.name,
      bytes,
    });
  }
  return readings;
}

export function trackMemory(everyMs = 1000) {
  const start = new Map<number, Reading>();
  const peak = new Map<number, Reading>();
  const end = new Map<number, Reading>();
  let stopped = false;
  let loop: Promise<void> = Promise.resolve();

  const note = (readings: Reading[]) => {
    for (const r of readings) {
      const best = peak.get(r.pid);
      if (!best || r.bytes > best.bytes) peak.set(r.pid, r);
    }
  };

  return {
    /** the start reading, then a reading every `everyMs` until `stop` */
    async start(): Promise<void> {
      const first = await readAll();
      for (const r of first) start.set(r.pid, r);
      note(first);
      loop = (async () => {
        while (!stopped) {
          await new Promise((r) => setTimeout(r, everyMs));
          if (!stopped) note(await readAll());
        }
      })();
    },
    /** the end reading; per process start, peak and end (null where it was not running) */
    async stop(): Promise<{ processes: ProcessMemoryReport[]; bench_heap_mb: HeapReport }> {
      stopped = true;
      await loop;
      const last = await readAll();
      for (const r of last) end.set(r.pid, r);
      note(last);
      const processes = [...peak.values()].map((p) => {
        const s = start.get(p.pid);
        const e = end.get(p.pid);
        return {
          pid: p.pid,
          ppid: p.ppid,
          name: p.name,
          role: p.role,
          start_mb: s ? mb(s.bytes) : null,
          peak_mb: mb(p.bytes),
          end_mb: e ? mb(e.bytes) : null,
          growth_mb: s && e ? mb(e.bytes - s.bytes) : null,
        };
      });
      return { processes, bench_heap_mb: heapNow() };
    },
  };
}

export interface HeapReport {
  heap_used: number;
  /** ArrayBuffers and other memory outside the JS heap (PGlite's WASM memory is here) */
  external: number;
}

export function heapNow(): HeapReport {
  const m = process.memoryUsage();
  return { heap_used: mb(m.heapUsed), external: mb(m.external) };
}
