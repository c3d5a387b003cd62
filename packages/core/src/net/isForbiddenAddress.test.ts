import { describe, expect, it } from "vitest";
import { isForbiddenAddress } from "./isForbiddenAddress.ts";

// Every address form the SSRF rule must refuse, with the range it belongs to (issue 14 §5 and §8), then public
// addresses that must pass. The rule is "ipaddr.js range is unicast", IPv6 only in 2000::/3, IPv4-embedding forms
// judged by their IPv4 address.
const FORBIDDEN: [string, string][] = [
  // IPv4
  ["0.0.0.0", "unspecified 0.0.0.0/8"],
  ["0.1.2.3", "this network 0.0.0.0/8"],
  ["10.0.0.1", "private 10/8"],
  ["10.255.255.255", "private 10/8"],
  ["100.64.0.1", "CGNAT 100.64/10"],
  ["100.127.255.255", "CGNAT 100.64/10"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback 127/8"],
  ["169.254.169.254", "link-local (cloud metadata)"],
  ["169.254.0.1", "link-local"],
  ["172.16.0.1", "private 172.16/12"],
  ["172.31.255.255", "private 172.16/12"],
  ["192.0.0.1", "IETF protocol assignments 192.0.0.0/24"],
  ["192.0.0.170", "NAT64 discovery 192.0.0.0/24"],
  ["192.0.2.1", "TEST-NET-1"],
  ["198.51.100.7", "TEST-NET-2"],
  ["203.0.113.9", "TEST-NET-3"],
  ["192.88.99.1", "6to4 relay anycast 192.88.99.0/24"],
  ["192.168.1.1", "private 192.168/16"],
  ["198.18.0.1", "benchmarking 198.18/15"],
  ["198.19.255.255", "benchmarking 198.18/15"],
  ["192.31.196.1", "AS112 192.31.196.0/24"],
  ["192.175.48.1", "AS112 192.175.48.0/24"],
  ["192.52.193.1", "AMT 192.52.193.0/24"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved 240/4"],
  ["255.255.255.255", "broadcast"],
  // IPv6 special ranges
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["::127.0.0.1", "deprecated IPv4-compatible ::/96"],
  ["::8.8.8.8", "deprecated IPv4-compatible ::/96 (even with a public IPv4)"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local with a zone"],
  ["fec0::1", "deprecated site-local fec0::/10"],
  ["feff::1", "site-local fec0::/10 upper end"],
  ["fc00::1", "unique local fc00::/7"],
  ["fd00:ec2::254", "unique local (AWS metadata)"],
  ["ff02::1", "multicast"],
  ["100::1", "discard-only 100::/64"],
  ["2001::1", "Teredo 2001::/32"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo 2001::/32"],
  ["2001:2::1", "benchmarking 2001:2::/48"],
  ["2001:10::1", "ORCHIDv1 2001:10::/28 (deprecated)"],
  ["2001:1f::1", "2001:10::/28 upper end"],
  ["2001:20::1", "ORCHIDv2 2001:20::/28"],
  ["2001:db8::1", "documentation 2001:db8::/32"],
  ["3fff::1", "documentation 3fff::/20"],
  ["2002:7f00:1::1", "6to4 2002::/16 (loopback inside)"],
  ["2002:808:808::1", "6to4 2002::/16 (refused whatever it embeds)"],
  ["5f00::1", "SRv6 SIDs 5f00::/16, outside 2000::/3"],
  ["4000::1", "unallocated, outside 2000::/3"],
  ["64:ff9b:1::a00:1", "local-use NAT64 64:ff9b:1::/48"],
  // IPv4-mapped ::ffff:0:0/96, judged as IPv4
  ["::ffff:127.0.0.1", "mapped loopback"],
  ["::ffff:7f00:1", "mapped loopback (hex)"],
  ["::ffff:10.0.0.1", "mapped private"],
  ["::ffff:169.254.169.254", "mapped metadata"],
  ["::ffff:a9fe:a9fe", "mapped metadata (hex)"],
  ["::ffff:0:0", "mapped 0.0.0.0"],
  ["::ffff:192.88.99.1", "mapped 6to4 relay"],
  ["::ffff:203.0.113.1", "mapped TEST-NET-3"],
  // IPv4-translated ::ffff:0:0:0/96 (RFC 6145), judged as IPv4
  ["::ffff:0:127.0.0.1", "translated loopback"],
  ["::ffff:0:7f00:1", "translated loopback (hex)"],
  ["::ffff:0:a9fe:a9fe", "translated metadata"],
  ["::ffff:0:0:0", "translated 0.0.0.0"],
  // NAT64 64:ff9b::/96 (RFC 6052), judged as IPv4
  ["64:ff9b::a9fe:a9fe", "NAT64 metadata"],
  ["64:ff9b::127.0.0.1", "NAT64 loopback"],
  ["64:ff9b::c0a8:101", "NAT64 192.168.1.1"],
  // not strict IP literals: fail closed
  ["not-an-ip", "host name"],
  ["", "empty"],
  ["1.2.3", "short IPv4"],
  ["127.1", "short IPv4"],
  ["0x7f.0.0.1", "hex IPv4"],
  ["2130706433", "integer IPv4"],
  ["::ffff:999.0.0.1", "bad embedded IPv4"],
  ["[::1]", "bracketed"],
  ["8.8.8.8 ", "trailing space"],
];

const PUBLIC: [string, string][] = [
  ["8.8.8.8", "public IPv4"],
  ["1.1.1.1", "public IPv4"],
  ["93.184.216.34", "public IPv4"],
  ["172.15.255.255", "just below 172.16/12"],
  ["172.32.0.1", "just above 172.16/12"],
  ["100.128.0.1", "just above CGNAT"],
  ["100.63.255.255", "just below CGNAT"],
  ["192.169.0.1", "just above 192.168/16"],
  ["192.0.1.1", "between 192.0.0/24 and TEST-NET-1"],
  ["198.17.255.255", "just below 198.18/15"],
  ["198.20.0.1", "just above 198.18/15"],
  ["223.255.255.254", "just below multicast"],
  ["2606:4700:4700::1111", "public IPv6"],
  ["2a00:1450:4001:80b::200e", "public IPv6"],
  ["2001:4860:4860::8888", "public IPv6 in 2001::/16"],
  ["2001:200::1", "public IPv6 just above 2001::/23"],
  ["3ffe::1", "global unicast below 3fff::/20"],
  ["::ffff:8.8.8.8", "mapped public IPv4"],
  ["::ffff:0:8.8.8.8", "translated public IPv4"],
  ["64:ff9b::808:808", "NAT64 of a public IPv4 (DNS64)"],
];

describe("isForbiddenAddress", () => {
  it.each(FORBIDDEN)("forbids %s (%s)", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });
  it.each(PUBLIC)("allows %s (%s)", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

describe("isForbiddenAddress: dotted tails and zone ids", () => {
  it("forbids an IPv4-compatible address (::/96) whatever the width of each octet, with or without a zone id", () => {
    for (const ip of ["::8.88.8.8", "::8.8.88.8", "::8.8.8.88", "::88.8.8.8", "::8.8.8.8%eth0"]) expect(isForbiddenAddress(ip), ip).toBe(true);
  });
  it("judges an address by its bits, never by its zone id, even a zone id that looks like an address (no throw)", () => {
    expect(isForbiddenAddress("fe80::1%1.2.3.4")).toBe(true);
    expect(isForbiddenAddress("fe80::1%a:b")).toBe(true);
    expect(isForbiddenAddress("::ffff:8.8.8.8%1.2.3.4")).toBe(false);
    expect(isForbiddenAddress("::ffff:127.0.0.1%8.8.8.8")).toBe(true);
    expect(isForbiddenAddress("2606:4700:4700::1111%a:b")).toBe(false);
  });
});
