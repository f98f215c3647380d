import { readdir, readFile, readlink } from "node:fs/promises";

// The processes a local stack runs under this process (wrangler, its workerd children), and
// the sockets they listen on, read from /proc: how the bench and the tests find a worker's
// inspector and account for its CPU and memory.

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** the command name (`/proc/<pid>/stat`'s comm), e.g. "workerd", "node" */
  name: string;
  /**
   * CPU seconds, user and system, of the process and of its children that ended and were
   * waited for (a postmaster's ended backends, a shell's finished commands)
   */
  cpuSeconds: number;
}

/** `/proc` counts CPU time in USER_HZ ticks, 100 a second on every Linux ABI. */
export const TICKS_PER_SECOND = 100;

/** Every descendant of this process (a stack's wrangler and its workerd children). */
export async function descendantProcesses(): Promise<ProcessInfo[]> {
  return descendantsOf(await allProcesses());
}

/** The descendants of this process among `all`. */
export function descendantsOf(all: ProcessInfo[]): ProcessInfo[] {
  const parents = new Map(all.map((p) => [p.pid, p.ppid]));
  const isDescendant = (pid: number) => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) {
      if (p === process.pid) return true;
    }
    return false;
  };
  return all.filter((p) => isDescendant(p.pid));
}

/** Every process of the machine this process can see. */
export async function allProcesses(): Promise<ProcessInfo[]> {
  const all: ProcessInfo[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      // "pid (comm) state ppid …": comm may contain spaces, so split after the last ')'
      const close = stat.lastIndexOf(")");
      const name = stat.slice(stat.indexOf("(") + 1, close);
      // after the comm: state ppid … utime(14) stime(15) cutime(16) cstime(17), 1-based overall
      const fields = stat.slice(close + 2).split(" ");
      const ppid = Number(fields[1]);
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
      all.push({ pid: Number(entry), ppid, name, cpuSeconds: ticks / TICKS_PER_SECOND });
    } catch {
      // the process ended while we looked
    }
  }
  return all;
}

/** TCP ports `pid` listens on: its socket inodes matched against the kernel's tables. */
export async function listeningPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  try {
    for (const fd of await readdir(`/proc/${pid}/fd`)) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode) inodes.add(inode);
    }
  } catch {
    return []; // the process ended
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const text = await readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "HEXIP:HEXPORT"; state 0A is LISTEN; field 9 is the inode
      if (fields[3] !== "0A" || !inodes.has(fields[9] ?? "")) continue;
      ports.push(Number.parseInt((fields[1] ?? "").split(":")[1] ?? "", 16));
    }
  }
  return ports;
}
