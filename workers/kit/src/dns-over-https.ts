import { type ResolveHost, UpstreamError } from "@quarry/core";

/**
 * The URL fetcher's host resolver for Workers, which have no DNS API: DNS over HTTPS with
 * the JSON API (`accept: application/dns-json`, as Cloudflare and Google serve it).
 *
 * A and AAAA are asked in parallel and both must answer: the fetcher refuses a name when
 * ANY of its addresses is not public, so a lookup that failed for one family cannot count
 * as "no addresses there". Following the ResolveHost contract, a name that does not exist
 * (NXDOMAIN, or a failing authoritative server: SERVFAIL/REFUSED) resolves to `[]`, which the
 * fetcher reports as a 400 on the user's URL; a resolver we cannot reach, or that answers
 * nonsense, is a 502 `upstream_error` — our dependency failed, not the user's URL.
 */
export const DEFAULT_DOH_ENDPOINT = "https://cloudflare-dns.com/dns-query";

export interface DohResolverOptions {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  endpoint?: string;
  /** Per lookup (both families, all CNAME hops); the caller's signal can end it sooner. */
  timeoutMs?: number;
}

const RECORD_TYPES = { A: 1, AAAA: 28 } as const;
type RecordType = keyof typeof RECORD_TYPES;
const CNAME = 5;
const NOERROR = 0;
/** The recursive resolver chases CNAMEs itself; we only re-ask when it stopped halfway. */
const MAX_CNAME_QUERIES = 8;

interface DnsRecord {
  name: string;
  type: number;
  data: string;
}

export function createDohResolver(options: DohResolverOptions): ResolveHost {
  const endpoint = options.endpoint ?? DEFAULT_DOH_ENDPOINT;
  const timeoutMs = options.timeoutMs ?? 5_000;
  return async (hostname, signal) => {
    const name = normalizeName(hostname);
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const query = (target: string, type: RecordType) =>
      queryDoh({ fetch: options.fetch, endpoint, timeoutMs }, target, type, combined, signal);
    const [v4, v6] = await Promise.all([lookup(name, "A", query), lookup(name, "AAAA", query)]);
    return [...v4, ...v6];
  };
}

type Query = (name: string, type: RecordType) => Promise<{ status: number; records: DnsRecord[] }>;

/** Addresses of `type` for `name`, following the CNAME chain the resolver returns. */
async function lookup(name: string, type: RecordType, query: Query): Promise<string[]> {
  let target = name;
  for (let queries = 0; queries < MAX_CNAME_QUERIES; queries++) {
    const { status, records } = await query(target, type);
    if (status !== NOERROR) return [];
    const { addresses, end } = followChain(target, records, RECORD_TYPES[type]);
    if (addresses.length > 0 || end === target) return addresses;
    target = end; // a CNAME whose target the resolver did not answer for: ask for it
  }
  return []; // a CNAME loop or an absurdly long chain: treat the name as unresolvable
}

/**
 * Walks `CNAME` records from `name` (in any order, case-insensitively) and collects the
 * address records of every name on the chain; `end` is the last name of the chain.
 * Records for names off the chain are ignored: fetch would never use them.
 */
export function followChain(
  name: string,
  records: DnsRecord[],
  typeCode: number,
): { addresses: string[]; end: string } {
  const chain = new Set([name]);
  let end = name;
  let grew = true;
  while (grew) {
    grew = false;
    for (const record of records) {
      if (record.type !== CNAME || !chain.has(normalizeName(record.name))) continue;
      const next = normalizeName(record.data);
      if (chain.has(next)) continue;
      chain.add(next);
      end = next;
      grew = true;
    }
  }
  const addresses = records
    .filter((record) => record.type === typeCode && chain.has(normalizeName(record.name)))
    .map((record) => record.data.trim());
  return { addresses, end };
}

async function queryDoh(
  config: { fetch: DohResolverOptions["fetch"]; endpoint: string; timeoutMs: number },
  name: string,
  type: RecordType,
  signal: AbortSignal,
  callerSignal: AbortSignal | undefined,
): Promise<{ status: number; records: DnsRecord[] }> {
  const url = new URL(config.endpoint);
  url.searchParams.set("name", name);
  url.searchParams.set("type", type);
  const failed = (why: string, cause?: unknown) =>
    new UpstreamError(`could not resolve host '${name}': ${why}`, undefined, { cause });
  let body: unknown;
  try {
    // Called unbound: Workers' fetch throws "Illegal invocation" when called as `config.fetch`.
    const fetchFn = config.fetch;
    const response = await fetchFn(url.href, {
      headers: { accept: "application/dns-json" },
      signal,
    });
    if (!response.ok) {
      response.body?.cancel().catch(() => {});
      throw failed(`the DNS resolver answered ${response.status}`);
    }
    body = await response.json();
  } catch (error) {
    // The fetcher's own deadline: let it report the timeout in its words.
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (error instanceof UpstreamError) throw error;
    if (error instanceof SyntaxError) throw failed("the DNS resolver sent an unreadable answer");
    if (signal.aborted)
      throw failed(`the DNS resolver did not answer within ${config.timeoutMs} ms`);
    throw failed("the DNS resolver could not be reached", error);
  }
  const parsed = parseDnsJson(body);
  if (parsed === null) throw failed("the DNS resolver sent an unreadable answer");
  return parsed;
}

function parseDnsJson(body: unknown): { status: number; records: DnsRecord[] } | null {
  if (typeof body !== "object" || body === null) return null;
  const { Status: status, Answer: answer } = body as { Status?: unknown; Answer?: unknown };
  if (typeof status !== "number") return null;
  if (answer === undefined) return { status, records: [] };
  if (!Array.isArray(answer)) return null;
  const records: DnsRecord[] = [];
  for (const item of answer) {
    const { name, type, data } = (item ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || typeof type !== "number" || typeof data !== "string") {
      return null;
    }
    records.push({ name, type, data });
  }
  return { status, records };
}

function normalizeName(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, "");
}
