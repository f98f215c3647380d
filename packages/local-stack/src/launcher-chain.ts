import { readFileSync } from "node:fs";

/**
 * The processes that launched this one for a package script — `pnpm`/`npm`, the `sh -c` they
 * run the script in, a `tsx` launcher — nearest first, as Linux's /proc shows them. When one of
 * them is killed hard (SIGKILL, a crash), the processes below it are re-parented and run on,
 * holding the stack's ports; `watchLauncherChain` notices and lets this process stop cleanly.
 * Elsewhere (no /proc) only the direct parent is watched.
 */
export function launcherChain(pid = process.pid): number[] {
  const chain: number[] = [];
  let parent = parentOf(pid);
  while (parent !== null && parent > 1 && chain.length < 6) {
    chain.push(parent);
    if (!isLauncher(parent)) break; // the first process that is not a launcher ends the chain
    parent = parentOf(parent);
  }
  return chain;
}

/** Calls `onGone` (once) when any process of the chain this process started under is gone. */
export function watchLauncherChain(onGone: (pid: number) => void, everyMs = 1000): void {
  const chain = launcherChain();
  const started = process.ppid;
  const timer = setInterval(() => {
    const gone = process.ppid !== started ? started : chain.find((pid) => parentOf(pid) === null);
    if (gone === undefined) return;
    clearInterval(timer);
    onGone(gone);
  }, everyMs);
  timer.unref();
}

/** A process's parent pid from /proc, or null when the process no longer exists (or no /proc). */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    if (state === "Z" || state === "X") return null; // a zombie is gone, its parent just hasn't reaped it
    return Number(fields[1]);
  } catch {
    return null;
  }
}

function isLauncher(pid: number): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    const line = args.join(" ");
    return (
      /(^|\/)(pnpm|npm|npx|tsx)(\.c?js)?( |$)/.test(line) ||
      /^(\/bin\/)?(sh|dash|bash) -c /.test(line)
    );
  } catch {
    return false;
  }
}
