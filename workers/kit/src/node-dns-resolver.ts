/// <reference path="./node-dns.d.ts" />
import { resolve4, resolve6 } from "node:dns/promises";
import { isIpAddress, type ResolveHost, UpstreamError } from "@quarry/core";

/**
 * The URL fetcher's host resolver for Workers: workerd's `node:dns` (nodejs_compat), which
 * asks Cloudflare's DNS over HTTPS (1.1.1.1). `lookup` is not used: it reports a resolver it
 * cannot reach as "not found" and drops a family whose query failed. `resolve4`/`resolve6`
 * are, with three corrections this adapter makes (seen on workerd 1.20260426.1):
 *
 * - Their answer lists every record, so a CNAME's target name comes back among the
 *   addresses: only IP literals are kept, and a chain the resolver left unfinished is asked
 *   again for its last name.
 * - They take no AbortSignal: the lookup is raced against its own timeout and the caller's.
 * - Errors carry DNS codes: ENOTFOUND (NXDOMAIN, SERVFAIL, no records) is "no addresses".
 *
 * A and AAAA are asked in parallel and both must answer: the fetcher refuses a name when
 * ANY of its addresses is not public, so a lookup that failed for one family cannot count as
 * "no addresses there". Following the ResolveHost contract, a name that does not exist
 * resolves to `[]` (a 400 on the user's URL); a resolver we cannot reach, or that answers
 * nonsense, is a 502 `upstream_error`: our dependency failed, not the user's URL.
 */
export interface NodeDnsResolverOptions {
  /** Per lookup (both families, all CNAME hops); the caller's signal can end it sooner. */
  timeoutMs?: number;
}

/** The recursive resolver chases CNAMEs itself; we only re-ask when it stopped halfway. */
const MAX_CNAME_QUERIES = 8;

export function createNodeDnsResolver(options: NodeDnsResolverOptions = {}): ResolveHost {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return async (hostname, signal) => {
    const name = hostname.trim().toLowerCase().replace(/\.+$/, "");
    const failed = (why: string, cause?: unknown) =>
      new UpstreamError(`could not resolve host '${name}': ${why}`, undefined, { cause });
    const both = Promise.all([
      addresses(name, (target) => resolve4(target)),
      addresses(name, (target) => resolve6(target)),
    ]);
    const [v4, v6] = await settleWithin(both, timeoutMs, signal, failed);
    return [...v4, ...v6];
  };

  async function addresses(
    name: string,
    query: (target: string) => Promise<string[]>,
  ): Promise<string[]> {
    let target = name;
    for (let asked = 0; asked < MAX_CNAME_QUERIES; asked++) {
      let answer: string[];
      try {
        answer = await query(target);
      } catch (error) {
        if ((error as { code?: unknown }).code === "ENOTFOUND") return [];
        throw error;
      }
      const ips = answer.map((data) => data.trim()).filter(isIpAddress);
      const names = answer.filter((data) => !isIpAddress(data.trim()));
      const end = names.at(-1)?.trim().toLowerCase().replace(/\.+$/, "");
      if (ips.length > 0 || end === undefined || end === target) return ips;
      target = end; // a CNAME whose target the resolver did not answer for: ask for it
    }
    return []; // a CNAME loop or an absurdly long chain: treat the name as unresolvable
  }
}

/** The lookup's result, or the caller's abort reason, or a 502 for a resolver that failed. */
async function settleWithin<T>(
  lookup: Promise<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  failed: (why: string, cause?: unknown) => UpstreamError,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(failed(`the DNS resolver did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([
      lookup.catch((error: unknown) => {
        // EBADQUERY: the request failed or its answer was not JSON; EBADRESP: an HTTP error
        // or an answer without its question.
        const code = (error as { code?: unknown }).code;
        throw code === "EBADQUERY"
          ? failed("the DNS resolver could not be reached", error)
          : failed(`the DNS resolver failed (${String(code ?? error)})`, error);
      }),
      timedOut,
      aborted,
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
