import { descendantProcesses, listeningPorts } from "@quarry/local-stack";

/**
 * The api worker's own HTTP socket in a started stack, for `BENCH_VIA=worker`.
 *
 * `wrangler dev` puts a proxy worker in front of the user's (it holds requests during a
 * reload): every request crosses workerd twice, ~1.2–1.7 ms on this 2-core machine, a hop
 * that exists only in local development — a deployed Worker is entered straight from
 * Cloudflare's edge. workerd serves each user worker on a loopback socket of its own too;
 * wrangler does not print it, so it is found among the sockets the stack's workerd processes
 * listen on, as the one (other than the proxy's) whose `/health` is the api's `{"status":"ok"}`.
 */
export async function apiWorkerSocket(proxyBaseUrl: string): Promise<string> {
  const proxyPort = Number(new URL(proxyBaseUrl).port);
  for (const p of await descendantProcesses()) {
    if (p.name !== "workerd") continue;
    for (const port of await listeningPorts(p.pid)) {
      if (port === proxyPort) continue;
      const base = `http://127.0.0.1:${port}`;
      if (await answersAsApi(base)) return base;
    }
  }
  throw new Error("BENCH_VIA=worker: no workerd socket of the stack answers /health as the api");
}

async function answersAsApi(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json()) as { status?: unknown };
    return res.status === 200 && body.status === "ok";
  } catch {
    return false;
  }
}
