import { readFile } from "node:fs/promises";
import type { ProcessInfo } from "@quarry/local-stack";

// What each process of the stack a bench started is (`@quarry/local-stack` finds them).

/** The role this bench process plays in a load run. */
export const BENCH_PROCESS_ROLE = "bench (PGlite + loopback pg server when the stack is ours)";

/**
 * What each descendant of this process is, from its name, parent and command line: wrangler's
 * bin re-executes itself once; `wrangler dev` runs two workerd: the workers themselves (with
 * an inspector) and its dev proxy in front of them, which listens on the stack's port.
 */
export async function descendantRoles(descendants: ProcessInfo[]): Promise<Map<number, string>> {
  const launchers = new Set(
    descendants.filter((p) => p.ppid === process.pid && p.name === "node").map((p) => p.pid),
  );
  const roles = new Map<number, string>();
  for (const p of descendants) roles.set(p.pid, roleOf(p, launchers, await commandLine(p.pid)));
  return roles;
}

function roleOf(p: ProcessInfo, launchers: Set<number>, args: string): string {
  if (p.name === "workerd") {
    return args.includes("--inspector-addr")
      ? "workerd (the api and ingest workers)"
      : "workerd (wrangler's dev proxy)";
  }
  if (p.name === "esbuild") return "esbuild (wrangler's bundler)";
  if (p.name === "node" && launchers.has(p.ppid)) return "wrangler dev (miniflare)";
  if (p.name === "node" && p.ppid === process.pid) return "wrangler launcher (bin/wrangler.js)";
  return p.name;
}

async function commandLine(pid: number): Promise<string> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, "utf8")).replaceAll("\0", " ");
  } catch {
    return "";
  }
}
