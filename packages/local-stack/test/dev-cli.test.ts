import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../src/free-port.ts";
import { REPO_ROOT } from "../src/stack.ts";

/**
 * `pnpm dev` (packages/local-stack/src/cli/dev.ts) as a user runs it, on a throwaway DATA_DIR
 * and PORT: killed hard, it leaves no wrangler or workerd behind holding the port; started
 * again, it says where the admin token is kept without printing the token.
 */
const DEV = join(REPO_ROOT, "packages/local-stack/src/cli/dev.ts");

let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "quarry-dev-cli-"));
});
// A failed test leaks no process: everything still running with this DATA_DIR is ours.
afterEach(() => {
  for (const pid of ours()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

interface Dev {
  child: ChildProcess;
  port: number;
  output(): string;
}

/** Runs `command args` (node by default) and waits for "Quarry ready at". */
async function startDev(args: string[], command = process.execPath): Promise<Dev> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    WRANGLER_SEND_METRICS: "false",
  };
  for (const name of ["ADMIN_TOKEN", "DATABASE_URL", "EMBEDDING_MODEL"]) delete env[name];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 150_000;
  while (!output.includes("Quarry ready at")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`dev did not start (exit ${child.exitCode}):\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, port, output: () => output };
}

/** Linux's process table: pid → parent pid. */
function parents(): Map<number, number> {
  const table = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) table.set(Number(entry), stat.ppid);
  }
  return table;
}

function readStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: state ?? "", ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Whether `pid` still runs (a zombie waiting for init to reap it has stopped running). */
function running(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

function descendants(root: number): number[] {
  const table = parents();
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const [child, parent] of table) {
      if (parent === pid) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** Running processes started for this DATA_DIR (dev.ts, tsx, wrangler, workerd). */
function ours(): number[] {
  const marker = `\0DATA_DIR=${dataDir}\0`;
  return [...parents().keys()].filter((pid) => {
    try {
      return running(pid) && `\0${readFileSync(`/proc/${pid}/environ`, "utf8")}`.includes(marker);
    } catch {
      return false;
    }
  });
}

/** Whether nothing accepts connections on the port any more. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** The names of the processes, for a failure message. */
function describeProcesses(pids: number[]): string[] {
  return pids.filter(running).map((pid) => {
    try {
      return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 120)}`;
    } catch {
      return String(pid);
    }
  });
}

describe.skipIf(process.platform !== "linux")("pnpm dev killed hard", () => {
  it("takes wrangler and workerd down with it when its process is SIGKILLed, freeing the port", async () => {
    const dev = await startDev(["--import", "tsx", DEV]);
    const token = (await readFile(join(dataDir, "admin-token"), "utf8")).trim();
    // the first start made the token: shown once, and where it is kept
    expect(dev.output()).toContain(`ADMIN_TOKEN=${token}  (generated)`);
    expect(dev.output()).toContain(`ADMIN_TOKEN kept in ${join(dataDir, "admin-token")}`);

    const commands = describeProcesses(descendants(dev.child.pid!)).join("\n");
    expect(commands).toContain("wrangler");
    expect(commands).toContain("workerd");
    expect(await refused(dev.port)).toBe(false);

    dev.child.kill("SIGKILL");
    // every process of the stack (and any its wrangler started meanwhile) is gone
    await expect
      .poll(() => describeProcesses(ours()), { timeout: 15_000, interval: 200 })
      .toEqual([]);
    expect(await refused(dev.port)).toBe(true);
  });

  it("started again through pnpm, says where the admin token is kept, not the token; SIGKILL of pnpm stops it", async () => {
    const dev = await startDev(["dev"], "pnpm");
    const file = join(dataDir, "admin-token");
    const token = (await readFile(file, "utf8")).trim();
    expect(dev.output()).toContain(`ADMIN_TOKEN kept in ${file}`);
    expect(dev.output()).not.toContain(token);
    expect(dev.output()).not.toContain("(generated)");

    // pnpm runs the script in a shell, which runs dev.ts: killing pnpm leaves both re-parented
    expect(describeProcesses(descendants(dev.child.pid!)).join("\n")).toContain("workerd");
    dev.child.kill("SIGKILL");
    await expect
      .poll(() => describeProcesses(ours()), { timeout: 20_000, interval: 200 })
      .toEqual([]);
    expect(await refused(dev.port)).toBe(true);
  });
});
