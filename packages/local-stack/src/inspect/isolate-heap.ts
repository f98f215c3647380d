import WebSocket from "ws";
import { descendantProcesses, listeningPorts } from "./processes.ts";

/**
 * The memory of one Worker's V8 isolate in a stack this process started, read through
 * workerd's inspector (`Runtime.getHeapUsage`). Process RSS also counts the runtime, every
 * other worker of the process and the allocator's slack, so it only bounds this from above.
 *
 * Two readings differ by the garbage: locally workerd sets the isolate no heap limit, so V8
 * collects lazily and the heap in use runs to 100–200 MB of mostly dead objects over a large
 * ingestion. `collectGarbage` asks for a full collection before each reading: what is left is
 * what the isolate holds, the memory a 128 MB limit cannot reclaim.
 *
 * wrangler dev runs workerd with `--inspector-addr=localhost:0`; the port is found among the
 * sockets that workerd process listens on, as the one whose `/json` lists the worker.
 */
export async function isolateInspectorUrl(workerName: string): Promise<string> {
  const target = `core:user:${workerName}`;
  for (const p of await descendantProcesses()) {
    if (p.name !== "workerd") continue;
    for (const port of await listeningPorts(p.pid)) {
      const targets = await inspectorTargets(port);
      const found = targets.find((t) => t.id === target);
      if (found) return found.webSocketDebuggerUrl;
    }
  }
  throw new Error(`no workerd inspector lists ${target}`);
}

export interface IsolateHeap {
  /** V8 heap in use */
  used_mb: number;
  /** V8 heap reserved */
  total_mb: number;
  /** heap in use plus ArrayBuffer backing stores (file bytes, parsed pages) */
  used_with_buffers_mb: number;
}

export interface HeapSampling {
  everyMs?: number;
  /** a full collection before each reading: the live heap, not the heap in use */
  collectGarbage?: boolean;
}

export interface HeapSamples {
  worker: string;
  samples: number;
  sessions: number;
  first: IsolateHeap | undefined;
  peak: IsolateHeap;
  /** the reading with the least in use: with `collectGarbage`, the isolate between events */
  lowest: IsolateHeap | undefined;
  last: IsolateHeap | undefined;
}

/**
 * Samples the isolate's heap until stopped; returns the first, the peak, the lowest and the last
 * readings.
 * workerd closes an inspector session that attaches while the isolate is running an event,
 * so a closed session is opened again until one answers; once attached it stays.
 */
export async function sampleIsolateHeap(
  workerName: string,
  { everyMs = 100, collectGarbage = false }: HeapSampling = {},
): Promise<{ stop(): Promise<HeapSamples> }> {
  const url = await isolateInspectorUrl(workerName);
  let first: IsolateHeap | undefined;
  let last: IsolateHeap | undefined;
  let lowest: IsolateHeap | undefined;
  const peak: IsolateHeap = { used_mb: 0, total_mb: 0, used_with_buffers_mb: 0 };
  let samples = 0;
  let sessions = 0;
  let stopped = false;
  const record = (usage: HeapUsage) => {
    const heap = toHeap(usage);
    first ??= heap;
    last = heap;
    if (!lowest || heap.used_with_buffers_mb < lowest.used_with_buffers_mb) lowest = heap;
    samples++;
    peak.used_mb = Math.max(peak.used_mb, heap.used_mb);
    peak.total_mb = Math.max(peak.total_mb, heap.total_mb);
    peak.used_with_buffers_mb = Math.max(peak.used_with_buffers_mb, heap.used_with_buffers_mb);
  };
  const loop = (async () => {
    while (!stopped) {
      sessions++;
      await sampleOneSession(url, { everyMs, collectGarbage }, record, () => stopped);
      if (!stopped) await sleep(200);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { worker: workerName, samples, sessions, first, peak, lowest, last };
    },
  };
}

/** One inspector session: asks for the heap usage every `everyMs` until it closes or stops. */
async function sampleOneSession(
  url: string,
  { everyMs, collectGarbage }: Required<HeapSampling>,
  record: (usage: HeapUsage) => void,
  stopped: () => boolean,
): Promise<void> {
  const socket = new WebSocket(url);
  let open = true;
  const closed = new Promise<void>((resolve) => {
    socket.once("close", () => resolve());
    socket.once("error", () => resolve());
  }).then(() => {
    open = false;
  });
  const answered = new Map<number, () => void>();
  socket.on("message", (raw) => {
    const reply = JSON.parse(String(raw)) as { id?: number; result?: HeapUsage };
    if (reply.id !== undefined) answered.get(reply.id)?.();
    if (reply.result && typeof reply.result.usedSize === "number") record(reply.result);
  });
  /** sends a command and waits for its answer (or the session's end) */
  const ask = (id: number, method: string) =>
    Promise.race([
      new Promise<void>((resolve) => {
        answered.set(id, resolve);
        socket.send(JSON.stringify({ id, method }));
      }),
      closed,
    ]).finally(() => answered.delete(id));
  await Promise.race([new Promise((resolve) => socket.once("open", resolve)), closed]);
  for (let id = 1; open && !stopped(); id += 2) {
    // The reading is asked for once the collection has answered: a session's first reading,
    // sent together with its collection, came back with the garbage still in.
    if (collectGarbage) await ask(id + 1, "HeapProfiler.collectGarbage");
    if (!open) break;
    socket.send(JSON.stringify({ id, method: "Runtime.getHeapUsage" }));
    await sleep(everyMs);
  }
  if (open) socket.close();
  await closed;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface HeapUsage {
  usedSize: number;
  totalSize: number;
  backingStorageSize?: number;
}

function toHeap(usage: HeapUsage): IsolateHeap {
  return {
    used_mb: mb(usage.usedSize),
    total_mb: mb(usage.totalSize),
    used_with_buffers_mb: mb(usage.usedSize + (usage.backingStorageSize ?? 0)),
  };
}

async function inspectorTargets(
  port: number,
): Promise<{ id: string; webSocketDebuggerUrl: string }[]> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as unknown;
    return Array.isArray(body) ? body : [];
  } catch {
    return [];
  }
}

/** Bytes as MiB with one decimal, as the memory figures (the bench's too) are reported. */
export const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
