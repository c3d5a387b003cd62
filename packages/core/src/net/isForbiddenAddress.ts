import ipaddr from "ipaddr.js";
import { isIP } from "node:net";

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

// IANA's global unicast space (2000::/3). Everything else in IPv6 — ::/96 (deprecated IPv4-compatible), fec0::/10
// (deprecated site-local), 5f00::/16 (SRv6), 64:ff9b:1::/48 (local-use NAT64, whose embedded IPv4 position is
// the operator's choice) — is not a public unicast destination, whatever ipaddr.js calls it.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");
// Special-purpose ranges inside 2000::/3 that ipaddr.js 2.2.0 does not name yet (IANA IPv6 special-purpose registry).
const EXTRA_NON_PUBLIC_V6 = [ipaddr.IPv6.parseCIDR("3fff::/20")]; // documentation (RFC 9637)

/** IPv6 forms that carry an IPv4 address in their last 32 bits and reach it: judged as that IPv4 address. */
const EMBEDS_IPV4 = new Set(["ipv4Mapped", "rfc6145", "rfc6052"]); // ::ffff:0:0/96, ::ffff:0:0:0/96, 64:ff9b::/96

function embeddedIpv4(v6: IPv6): IPv4 {
  const [, , , , , , hi, lo] = v6.parts as [number, number, number, number, number, number, number, number];
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

// ipaddr.js reads `::a.b.c.d` (deprecated IPv4-compatible, ::/96) as if it were `::ffff:a.b.c.d`; writing a dotted
// tail as two hex groups first makes every address parse as exactly the 128 bits it is. The zone id (after `%`, any
// text Node's isIP accepts, e.g. `fe80::1%1.2.3.4` or `fe80::1%a:b`) names an interface, not an address: dropped.
function hexTail(v6: string): string {
  const zone = v6.indexOf("%");
  return (zone === -1 ? v6 : v6.slice(0, zone)).replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_m, a: string, b: string, c: string, d: string) => `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
}

function publicV4(v4: IPv4): boolean {
  return v4.range() === "unicast";
}

function publicV6(v6: IPv6): boolean {
  const range: string = v6.range();
  if (EMBEDS_IPV4.has(range)) return publicV4(embeddedIpv4(v6));
  if (range !== "unicast") return false; // loopback, link-local, unique-local, multicast, Teredo, 6to4, 100::/64, 2001::/23, …
  if (!v6.match(GLOBAL_UNICAST_V6)) return false;
  return !EXTRA_NON_PUBLIC_V6.some((cidr) => v6.match(cidr));
}

/**
 * True when `address` (an IP literal, v4 or v6, optionally with an IPv6 zone) is not a public unicast address: the
 * SSRF rule of webhook deliveries. The ranges come from ipaddr.js (anything whose range is not `unicast` is refused);
 * IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`) and NAT64 (`64:ff9b::a.b.c.d`) addresses are
 * judged by the IPv4 address they reach; in IPv6 only the global unicast space 2000::/3 can pass. Anything that is
 * not a strict IP literal (`1.2.3`, `0x7f.1`, a host name) counts as forbidden (fail closed).
 */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !publicV4(ipaddr.IPv4.parse(address));
  if (family === 6) return !publicV6(ipaddr.IPv6.parse(hexTail(address)));
  return true;
}
