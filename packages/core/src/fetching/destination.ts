import { raceAbort } from "@quarry/providers";
import { BadRequestError, ServiceError, UpstreamError } from "../shared/errors.ts";
import { type AddressKind, classifyAddress, parseIPv4 } from "./ip-address.ts";

/**
 * The addresses (IPv4 and IPv6, text form) a host name resolves to. Contract:
 * - resolves `[]` when the name does not exist or has no A/AAAA records (→ 400 for the caller);
 * - throws when the lookup itself fails (resolver unreachable…): a `ServiceError` is passed on
 *   as it is, anything else becomes a 502 `upstream_error`;
 * - should stop when `signal` aborts (the fetch deadline covers resolution too).
 */
export type ResolveHost = (hostname: string, signal?: AbortSignal) => Promise<string[]>;

/**
 * Names that never denote a public host, whatever a resolver says: `localhost` and the
 * special-use or internal suffixes below (cloud metadata lives under `.internal`, e.g.
 * `metadata.google.internal`, `instance-data.ec2.internal`). Single-label names (`metadata`,
 * `intranet`) are refused too: they only resolve through local search domains.
 */
const BLOCKED_SUFFIXES = ["localhost", "local", "internal", "localdomain", "home.arpa"];
const BLOCKED_NAMES = new Set(["metadata.goog"]);

const KIND_TEXT: Record<AddressKind, string> = {
  public: "a public address",
  unspecified: "an unspecified address",
  loopback: "a loopback address",
  private: "a private address",
  shared: "a shared (carrier-grade NAT) address",
  "link-local": "a link-local address",
  "unique-local": "a unique-local address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  documentation: "a documentation address",
  benchmarking: "a benchmarking address",
  reserved: "a reserved address",
  invalid: "not a valid address",
};

const ONLY_PUBLIC = "only public addresses can be fetched";

/**
 * Parses a URL to fetch: absolute, `http:` or `https:`, no user name or password. Any port
 * is accepted — the address check is what keeps internal services out, and a public host
 * on :8080 is legitimate. `redirected` words the error for a Location header instead.
 */
export function parseSourceUrl(raw: string, path: string, redirected = false): URL {
  const what = redirected ? "redirected to" : "must be";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadRequestError(`${what} an absolute http or https URL`, path);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new BadRequestError(
      `${what} an http or https URL (got ${url.protocol.slice(0, -1)})`,
      path,
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new BadRequestError(
      redirected
        ? "redirected to a URL with a user name or password"
        : "must not contain a user name or password",
      path,
    );
  }
  return url;
}

/** Why a host name is refused without resolving it, or null when it may be resolved. */
export function refusedHostname(hostname: string): string | null {
  const name = hostname.replace(/\.+$/, "").toLowerCase();
  if (!name.includes(".")) return "is not a public host name";
  if (BLOCKED_NAMES.has(name)) return "is a cloud metadata host name";
  for (const suffix of BLOCKED_SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return "is not a public host name";
  }
  return null;
}

/**
 * Throws unless `url`'s host is public: an IP literal is classified directly; a name must
 * not be a local/internal one, and EVERY address it resolves to must be public (one private
 * address among public ones is refused: the runtime may pick any of them).
 *
 * This closes the door before the request is sent, not at connect time: the runtime's fetch
 * resolves the name again, so a rebinding DNS server could answer differently in between.
 * Workers offer no way to pin the address (nor to connect by IP with the right TLS name);
 * the remaining gap is covered by the platform — deployed Workers cannot reach private
 * networks or the metadata service at all — and this check is what protects `pnpm dev`
 * and any Node host, where the gap should be closed at the socket if it matters there.
 */
export async function assertPublicDestination(
  url: URL,
  resolveHost: ResolveHost,
  signal: AbortSignal,
  path: string,
  redirected = false,
): Promise<void> {
  const host = url.hostname;
  // "127.0.0.1 is a loopback address" / "redirected to 127.0.0.1, which is a loopback address"
  const refuse = (subject: string, predicate: string) =>
    new BadRequestError(
      redirected
        ? `redirected to ${subject}, which ${predicate}; ${ONLY_PUBLIC}`
        : `${subject} ${predicate}; ${ONLY_PUBLIC}`,
      path,
    );
  if (host.startsWith("[") || parseIPv4(host) !== null) {
    const kind = classifyAddress(host);
    if (kind !== "public") throw refuse(host, `is ${KIND_TEXT[kind]}`);
    return;
  }
  const named = `host '${host}'`;
  const refusal = refusedHostname(host);
  if (refusal !== null) throw refuse(named, refusal);

  const addresses = await resolve(host, resolveHost, signal);
  if (addresses.length === 0) {
    throw new BadRequestError(
      redirected
        ? `redirected to ${named}, which could not be resolved`
        : `could not resolve ${named}`,
      path,
    );
  }
  // The message says that, not which address: the internal layout is none of the caller's
  // business.
  if (addresses.some((address) => classifyAddress(address) !== "public")) {
    throw refuse(named, "resolves to an address that is not public");
  }
}

async function resolve(host: string, resolveHost: ResolveHost, signal: AbortSignal) {
  try {
    return await abortable(resolveHost(host, signal), signal);
  } catch (error) {
    if (signal.aborted || error instanceof ServiceError) throw error;
    throw new UpstreamError(`could not resolve host '${host}': the DNS lookup failed`, undefined, {
      cause: error,
    });
  }
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) promise.catch(() => {}); // settle quietly later; the abort already decided
  return raceAbort(promise, signal);
}
