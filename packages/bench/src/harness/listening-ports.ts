import { readdir, readFile, readlink } from "node:fs/promises";

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
