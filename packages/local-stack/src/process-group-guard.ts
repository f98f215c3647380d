import { type ChildProcess, spawn } from "node:child_process";

/**
 * The guard, as a script for `node -e`: it reads its stdin, a pipe whose other end only the
 * stack's process holds. When that process ends, however it ends (a clean stop, a crash,
 * SIGKILL, the OOM killer), the kernel closes the pipe; the guard sees end-of-file and takes
 * the process group down with it: SIGTERM, then SIGKILL after 5 s. A change of its parent
 * (re-parented to init or a subreaper) means the same, as a second signal. It exits at once
 * when the group is already gone.
 */
const GUARD_SCRIPT = `
const pgid = Number(process.env.QUARRY_GUARD_PGID);
const parent = process.ppid;
const alive = () => { try { process.kill(-pgid, 0); return true; } catch { return false; } };
const send = (signal) => { try { process.kill(-pgid, signal); } catch {} };
let reaping = false;
function reap() {
  if (reaping) return;
  reaping = true;
  if (!alive()) process.exit(0);
  send("SIGTERM");
  const started = Date.now();
  setInterval(() => {
    if (!alive()) process.exit(0);
    if (Date.now() - started > 5000) { send("SIGKILL"); process.exit(0); }
  }, 100);
}
process.stdin.on("end", reap);
process.stdin.on("close", reap);
process.stdin.on("error", reap);
process.stdin.resume();
setInterval(() => { if (process.ppid !== parent) reap(); }, 1000);
`;

export interface ProcessGroupGuard {
  /** the guard's own process, for tests */
  readonly pid: number | undefined;
  /** the group ended on its own (or was stopped): let the guard go */
  release(): void;
}

/**
 * Makes `child`'s process group (it must be spawned `detached: true`, so it leads its own
 * group) die with this process, even when this process dies without running any code:
 * Node has no `prctl(PR_SET_PDEATHSIG)`, so a tiny watchdog process holds the other end of
 * a pipe from us (see `GUARD_SCRIPT`). `wrangler dev` and its workerd children would
 * otherwise outlive a killed `pnpm dev` and keep its ports.
 *
 * The guard is released when the child exits (a group that lost its leader may still hold
 * workerd processes: the guard takes those down too) and by `release()`.
 */
export function guardProcessGroup(child: ChildProcess): ProcessGroupGuard {
  if (child.pid === undefined) return { pid: undefined, release() {} };
  const guard = spawn(process.execPath, ["-e", GUARD_SCRIPT], {
    env: { PATH: process.env.PATH ?? "", QUARRY_GUARD_PGID: String(child.pid) },
    // its own session: a terminal's Ctrl-C or hang-up is for us to handle, not the guard
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  guard.on("error", () => {});
  guard.stdin?.on("error", () => {});
  // Neither the guard nor its pipe keeps this process alive.
  guard.unref();
  (guard.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  const release = () => {
    if (guard.stdin && !guard.stdin.destroyed) guard.stdin.end();
  };
  child.once("exit", release);
  return { pid: guard.pid, release };
}
