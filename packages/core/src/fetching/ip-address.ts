/**
 * Classifies IP addresses for the URL fetcher: is an address one that the public internet
 * routes to a host, or loopback, private, link-local, metadata, multicast, reserved…?
 *
 * Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and updates).
 * The IPv6 check is an allow-list: only global unicast (2000::/3) minus its special blocks is
 * public, so a block we forgot is refused rather than allowed. Addresses that embed an IPv4
 * address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by the IPv4 address they
 * carry, because that is where a packet to them ends up.
 *
 * Parsing is strict (canonical dotted-quad, RFC 4291 text form): input that is not an
 * address in these forms is `invalid`, which callers treat as not public. URLs are parsed
 * with WHATWG `URL` first, which already turns `127.1`, `0x7f000001` or `2130706433` into
 * `127.0.0.1`.
 */

export type AddressKind =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "unique-local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "reserved"
  | "invalid";

interface Block<T> {
  base: T;
  prefix: number;
  kind: AddressKind;
}

/** First match wins, so more specific blocks come before the blocks that contain them. */
const IPV4_BLOCKS: Block<number>[] = [
  v4("0.0.0.0", 8, "unspecified"), // "this network"; 0.0.0.0 reaches the local host
  v4("10.0.0.0", 8, "private"),
  v4("100.64.0.0", 10, "shared"), // carrier-grade NAT; also Alibaba's metadata 100.100.100.200
  v4("127.0.0.0", 8, "loopback"),
  v4("169.254.0.0", 16, "link-local"), // includes the cloud metadata address 169.254.169.254
  v4("172.16.0.0", 12, "private"),
  v4("192.0.0.0", 24, "reserved"), // IETF protocol assignments; Oracle's metadata 192.0.0.192
  v4("192.0.2.0", 24, "documentation"),
  v4("192.88.99.0", 24, "reserved"), // deprecated 6to4 relay anycast
  v4("192.168.0.0", 16, "private"),
  v4("198.18.0.0", 15, "benchmarking"),
  v4("198.51.100.0", 24, "documentation"),
  v4("203.0.113.0", 24, "documentation"),
  v4("224.0.0.0", 4, "multicast"),
  v4("255.255.255.255", 32, "broadcast"),
  v4("240.0.0.0", 4, "reserved"),
];

type V6Rule = Block<bigint> & {
  /** The IPv4 address carried inside, which then decides the kind. */
  embedded?: (address: bigint) => number;
  /** Refused even when the embedded IPv4 is public (the block itself is not routed). */
  neverPublic?: true;
};

const low32 = (address: bigint) => Number(address & 0xffffffffn);

/** Checked in order, first match wins; anything that matches none is `reserved`. */
const IPV6_RULES: V6Rule[] = [
  v6("::", 128, "unspecified"),
  v6("::1", 128, "loopback"),
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d): the IPv4 decides.
  { ...v6("::ffff:0:0", 96, "reserved"), embedded: low32 },
  { ...v6("::ffff:0:0:0", 96, "reserved"), embedded: low32 },
  // Deprecated IPv4-compatible (::a.b.c.d): never public, but name what it points at.
  { ...v6("::", 96, "reserved"), embedded: low32, neverPublic: true },
  // NAT64 well-known prefix: a gateway forwards to the embedded IPv4.
  { ...v6("64:ff9b::", 96, "reserved"), embedded: low32 },
  v6("64:ff9b:1::", 48, "private"), // local-use NAT64
  v6("100::", 64, "reserved"), // discard-only
  v6("2001:db8::", 32, "documentation"),
  v6("2001::", 23, "reserved"), // IETF protocol assignments: Teredo, benchmarking, ORCHID…
  // 6to4: bits 16–47 carry the IPv4 address of the relay that delivers the packet.
  { ...v6("2002::", 16, "reserved"), embedded: (a) => Number((a >> 80n) & 0xffffffffn) },
  v6("3fff::", 20, "documentation"),
  v6("5f00::", 16, "reserved"), // SRv6 segment identifiers
  v6("2000::", 3, "public"), // global unicast
  v6("fc00::", 7, "unique-local"), // includes AWS's IPv6 metadata address fd00:ec2::254
  v6("fe80::", 10, "link-local"),
  v6("fec0::", 10, "reserved"), // deprecated site-local
  v6("ff00::", 8, "multicast"),
];

/** Classifies an IPv4 or IPv6 address in text form; IPv6 may be wrapped in brackets. */
export function classifyAddress(address: string): AddressKind {
  const v4Value = parseIPv4(address);
  if (v4Value !== null) return classifyIPv4(v4Value);
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v6Value = parseIPv6(bare);
  if (v6Value !== null) return classifyIPv6(v6Value);
  return "invalid";
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

/** Whether `text` is an IP address literal (not a host name). */
export function isIpAddress(text: string): boolean {
  return classifyAddress(text) !== "invalid";
}

function classifyIPv4(address: number): AddressKind {
  for (const block of IPV4_BLOCKS) {
    if (inV4Block(address, block)) return block.kind;
  }
  return "public";
}

function classifyIPv6(address: bigint): AddressKind {
  for (const rule of IPV6_RULES) {
    if (!inV6Block(address, rule)) continue;
    if (!rule.embedded) return rule.kind;
    const inner = classifyIPv4(rule.embedded(address));
    return inner === "public" && rule.neverPublic ? rule.kind : inner;
  }
  return "reserved";
}

/** Strict dotted-quad: four decimal parts 0–255 without leading zeros. Returns a uint32. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/**
 * RFC 4291 text form (hex groups, one optional `::`, an optional dotted-quad tail) as a
 * 128-bit integer. Zone ids (`fe80::1%eth0`) are rejected: URLs cannot carry them anyway.
 */
export function parseIPv6(text: string): bigint | null {
  if (text.length === 0 || text.length > 45) return null;
  let source = text;
  let tailGroups: number[] = [];
  if (text.includes(".")) {
    const lastColon = text.lastIndexOf(":");
    if (lastColon < 0) return null;
    const v4Value = parseIPv4(text.slice(lastColon + 1));
    if (v4Value === null) return null;
    tailGroups = [Math.floor(v4Value / 0x10000), v4Value % 0x10000];
    // "::1.2.3.4" keeps its "::"; "::ffff:1.2.3.4" loses the ":" before the dotted quad.
    source = text.slice(0, lastColon + 1);
    if (!source.endsWith("::")) source = source.slice(0, -1);
  }
  const halves = source.split("::");
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0] ?? "");
  const rest = halves.length === 2 ? parseGroups(halves[1] ?? "") : [];
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length + tailGroups.length;
  let groups: number[];
  if (halves.length === 2) {
    if (explicit > 7) return null;
    groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tailGroups];
  } else {
    if (explicit !== 8) return null;
    groups = [...head, ...tailGroups];
  }
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return value;
}

function parseGroups(text: string): number[] | null {
  if (text === "") return [];
  const groups: number[] = [];
  for (const group of text.split(":")) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    groups.push(Number.parseInt(group, 16));
  }
  return groups;
}

function inV4Block(address: number, block: Block<number>): boolean {
  const size = 2 ** (32 - block.prefix);
  return Math.floor(address / size) === Math.floor(block.base / size);
}

function inV6Block(address: bigint, block: Block<bigint>): boolean {
  const shift = BigInt(128 - block.prefix);
  return address >> shift === block.base >> shift;
}

function v4(base: string, prefix: number, kind: AddressKind): Block<number> {
  const value = parseIPv4(base);
  if (value === null) throw new Error(`bad IPv4 block ${base}`);
  return { base: value, prefix, kind };
}

function v6(base: string, prefix: number, kind: AddressKind): Block<bigint> {
  const value = parseIPv6(base);
  if (value === null) throw new Error(`bad IPv6 block ${base}`);
  return { base: value, prefix, kind };
}
