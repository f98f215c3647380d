import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import {
  allProcesses,
  descendantsOf,
  type ProcessInfo,
  TICKS_PER_SECOND,
} from "@quarry/local-stack";
import { BENCH_PROCESS_ROLE, descendantRoles } from "./process-roles.ts";
import { round } from "./stats.ts";

/**
 * Where a run's CPU went, by role: on a machine whose cores are all busy, throughput is set by
 * the CPU each request costs, and this says which process spends it. Covers this process, its
 * descendants (the stack: wrangler, workerd, esbuild) and the database server's processes when
 * it runs on this machine (every `postgres` process: its backends, and through the
 * postmaster the backends that ended during the run). Against a remote database or a running
 * stack (`BASE`) their share shows only in `machine.busy_cores`.
 */
export interface CpuReport {
  window_s: number;
  machine: {
    cores: number;
    /** cores' worth of time the machine was busy (all processes, the kernel included) */
    busy_cores: number;
  };
  /** by role, most CPU first; `cores` = cpu_s / window_s */
  roles: { role: string; processes: number; cpu_s: number; cores: number }[];
  /** busy time no role above accounts for (other processes, interrupts) */
  unattributed_cores: number;
  note: string;
}

const DATABASE_ROLE = "database server (postgres processes on this machine)";

interface Snapshot {
  at: number;
  busySeconds: number;
  processes: Map<number, ProcessInfo & { role: string }>;
}

/** Takes a snapshot at `start` and one at `stop`, and reports the CPU spent in between. */
export function trackCpu() {
  let first: Snapshot | undefined;
  return {
    async start(): Promise<void> {
      first = await snapshot();
    },
    async stop(): Promise<CpuReport> {
      if (!first) throw new Error("trackCpu: stop() before start()");
      return cpuBetween(first, await snapshot());
    },
  };
}

function cpuBetween(before: Snapshot, after: Snapshot): CpuReport {
  const windowS = (after.at - before.at) / 1000;
  const byRole = new Map<string, { processes: number; cpu: number }>();
  for (const p of after.processes.values()) {
    const earlier = before.processes.get(p.pid);
    // A pid reused by another program since the first snapshot started from zero.
    const base = earlier && earlier.name === p.name ? earlier.cpuSeconds : 0;
    const spent = Math.max(0, p.cpuSeconds - base);
    const entry = byRole.get(p.role) ?? { processes: 0, cpu: 0 };
    entry.processes++;
    entry.cpu += spent;
    byRole.set(p.role, entry);
  }
  const roles = [...byRole.entries()]
    .map(([role, { processes, cpu }]) => ({
      role,
      processes,
      cpu_s: round(cpu, 1),
      cores: round(cpu / windowS, 2),
    }))
    .sort((a, b) => b.cpu_s - a.cpu_s);
  const busyCores = (after.busySeconds - before.busySeconds) / windowS;
  const attributed = roles.reduce((sum, r) => sum + r.cores, 0);
  return {
    window_s: round(windowS, 1),
    machine: { cores: availableParallelism(), busy_cores: round(busyCores, 2) },
    roles,
    unattributed_cores: round(Math.max(0, busyCores - attributed), 2),
    note:
      "CPU seconds (user + system) per role between the start and the end of the load, from " +
      "/proc; a process that ended meanwhile counts in its parent, with its whole life",
  };
}

async function snapshot(): Promise<Snapshot> {
  const at = Date.now();
  const busySeconds = await machineBusySeconds();
  const all = await allProcesses();
  const roles = await descendantRoles(descendantsOf(all));
  const processes = new Map<number, ProcessInfo & { role: string }>();
  for (const p of all) {
    const role =
      p.pid === process.pid
        ? BENCH_PROCESS_ROLE
        : (roles.get(p.pid) ?? (p.name === "postgres" ? DATABASE_ROLE : undefined));
    if (role) processes.set(p.pid, { ...p, role });
  }
  return { at, busySeconds, processes };
}

/** Seconds all cores spent not idle (`/proc/stat`'s first line, less idle and iowait). */
async function machineBusySeconds(): Promise<number> {
  const line = (await readFile("/proc/stat", "utf8")).split("\n")[0] ?? "";
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = ticks.reduce((sum, t) => sum + t, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return (total - idle) / TICKS_PER_SECOND;
}
