import { describe, expect, it } from "vitest";
import {
  type AddressKind,
  classifyAddress,
  isPublicAddress,
  parseIPv4,
  parseIPv6,
} from "../../src/fetching/ip-address.ts";

const table: [string, AddressKind][] = [
  // IPv4: the edges of every block, and the public neighbours just outside them.
  ["0.0.0.0", "unspecified"],
  ["0.255.255.255", "unspecified"],
  ["1.0.0.0", "public"],
  ["1.1.1.1", "public"],
  ["8.8.8.8", "public"],
  ["9.255.255.255", "public"],
  ["10.0.0.0", "private"],
  ["10.255.255.255", "private"],
  ["11.0.0.0", "public"],
  ["100.63.255.255", "public"],
  ["100.64.0.0", "shared"],
  ["100.100.100.200", "shared"],
  ["100.127.255.255", "shared"],
  ["100.128.0.0", "public"],
  ["126.255.255.255", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["128.0.0.0", "public"],
  ["169.253.255.255", "public"],
  ["169.254.0.0", "link-local"],
  ["169.254.169.254", "link-local"],
  ["169.254.255.255", "link-local"],
  ["169.255.0.0", "public"],
  ["172.15.255.255", "public"],
  ["172.16.0.0", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.0", "public"],
  ["192.0.0.192", "reserved"],
  ["192.0.1.0", "public"],
  ["192.0.2.1", "documentation"],
  ["192.88.99.1", "reserved"],
  ["192.167.255.255", "public"],
  ["192.168.0.0", "private"],
  ["192.168.255.255", "private"],
  ["192.169.0.0", "public"],
  ["198.17.255.255", "public"],
  ["198.18.0.0", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.20.0.0", "public"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["223.255.255.255", "public"],
  ["224.0.0.0", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.0", "reserved"],
  ["255.255.255.254", "reserved"],
  ["255.255.255.255", "broadcast"],

  // IPv6
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::2", "unspecified"], // IPv4-compatible form of 0.0.0.2
  ["2606:4700:4700::1111", "public"],
  ["2001:4860:4860::8888", "public"],
  ["2a00:1450:4001:80b::200e", "public"],
  ["3ffe::1", "public"],
  ["1fff:ffff::1", "reserved"], // below 2000::/3
  ["4000::1", "reserved"], // above 2000::/3
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001::1", "reserved"], // Teredo
  ["2001:2::1", "reserved"], // benchmarking
  ["2001:200::1", "public"], // just past 2001::/23
  ["5f00::1", "reserved"],
  ["fc00::1", "unique-local"],
  ["fd00:ec2::254", "unique-local"],
  ["fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "unique-local"],
  ["fe80::1", "link-local"],
  ["febf:ffff::1", "link-local"],
  ["fec0::1", "reserved"],
  ["ff02::1", "multicast"],
  ["100::1", "reserved"],

  // IPv6 carrying IPv4: the IPv4 decides.
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::FFFF:7F00:0001", "loopback"],
  ["0:0:0:0:0:ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:a9fe:a9fe", "link-local"],
  ["::ffff:8.8.8.8", "public"],
  ["::ffff:0:127.0.0.1", "loopback"], // IPv4-translated
  ["::127.0.0.1", "loopback"], // IPv4-compatible (deprecated)
  ["::8.8.8.8", "reserved"], // IPv4-compatible is never routed, even to a public IPv4
  ["64:ff9b::127.0.0.1", "loopback"], // NAT64
  ["64:ff9b::a00:1", "private"],
  ["64:ff9b::808:808", "public"],
  ["64:ff9b:1::1", "private"], // local-use NAT64
  ["2002:7f00:1::", "loopback"], // 6to4 of 127.0.0.1
  ["2002:c0a8:101::1", "private"], // 6to4 of 192.168.1.1
  ["2002:a9fe:a9fe::", "link-local"],
  ["2002:808:808::1", "public"],

  // Not addresses (or not in the strict forms): never public.
  ["", "invalid"],
  ["localhost", "invalid"],
  ["127.1", "invalid"],
  ["0x7f.0.0.1", "invalid"],
  ["2130706433", "invalid"],
  ["0127.0.0.1", "invalid"],
  ["127.0.0.01", "invalid"],
  ["256.0.0.1", "invalid"],
  ["1.2.3.4.5", "invalid"],
  ["1.2.3.", "invalid"],
  [" 1.2.3.4", "invalid"],
  ["fe80::1%eth0", "invalid"],
  [":::1", "invalid"],
  ["1::2::3", "invalid"],
  ["1:2:3:4:5:6:7:8:9", "invalid"],
  ["1:2:3:4:5:6:7", "invalid"],
  ["1:2:3:4:5:6:7::8", "invalid"],
  ["12345::1", "invalid"],
  ["g::1", "invalid"],
  ["::ffff:127.0.0", "invalid"],
  ["::ffff:127.0.0.1:1", "invalid"],
  ["[::1", "invalid"],
];

describe("classifyAddress", () => {
  it.each(table)("%s → %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
    expect(isPublicAddress(address)).toBe(kind === "public");
  });
});

describe("parsers", () => {
  it.each([
    ["0.0.0.0", 0],
    ["127.0.0.1", 0x7f000001],
    ["255.255.255.255", 0xffffffff],
  ])("parseIPv4(%s)", (text, value) => {
    expect(parseIPv4(text)).toBe(value);
  });

  it.each([
    ["::", 0n],
    ["::1", 1n],
    ["1::", 1n << 112n],
    ["1:2:3:4:5:6:7:8", 0x0001_0002_0003_0004_0005_0006_0007_0008n],
    ["1:2:3:4:5:6:1.2.3.4", 0x0001_0002_0003_0004_0005_0006_0102_0304n],
    ["1::1.2.3.4", (1n << 112n) | 0x0102_0304n],
    ["::1.2.3.4", 0x0102_0304n],
    ["ffff::", 0xffffn << 112n],
    ["1:0::0:2", (1n << 112n) | 2n],
  ])("parseIPv6(%s)", (text, value) => {
    expect(parseIPv6(text)).toBe(value);
  });
});
