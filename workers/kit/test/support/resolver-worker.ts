import { createNodeDnsResolver } from "../../src/node-dns-resolver.ts";

/** Runs the resolver inside workerd: `/?host=…&timeout=…&abortAfter=…` → its answer or error. */
export default {
  async fetch(request: Request): Promise<Response> {
    const params = new URL(request.url).searchParams;
    const resolve = createNodeDnsResolver({ timeoutMs: Number(params.get("timeout") ?? 5000) });
    const abortAfter = params.get("abortAfter");
    const signal = abortAfter ? AbortSignal.timeout(Number(abortAfter)) : undefined;
    try {
      return Response.json({ addresses: await resolve(params.get("host") ?? "", signal) });
    } catch (error) {
      const { name, message, code } = error as { name: string; message: string; code?: string };
      return Response.json({ error: { name, message, code } });
    }
  },
};
