import ipaddr from "ipaddr.js";

/** One `X-Forwarded-For` header (or its repeated values) as a list of trimmed entries, leftmost first. */
function forwardedEntries(forwardedFor: string | string[] | undefined): string[] {
  if (forwardedFor === undefined) return [];
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  return joined
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** `ip4:a.b.c.d`, or `ip6:<first 64 bits>::/64` (one IPv6 subscriber gets a whole /64), or null for a non-address. */
function addressKey(text: string | undefined): string | null {
  if (!text) return null;
  let bare = text;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text); // "[2001:db8::1]" or "[2001:db8::1]:443"
  if (bracketed) bare = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(text)) bare = text.slice(0, text.lastIndexOf(":")); // "1.2.3.4:5678"
  bare = bare.replace(/%.*$/, ""); // zone id
  if (ipaddr.IPv4.isValid(bare) && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return null; // "127.1", "0x7f.0.0.1"
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.process(bare); // IPv4-mapped IPv6 (::ffff:a.b.c.d) → IPv4
  if (parsed.kind() === "ipv4") return `ip4:${parsed.toString()}`;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `ip6:${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

/**
 * The rate-limit key of a request's client. `trustedHops` is how many proxies in front of us are believed (TRUST_PROXY):
 * 0 → the socket peer; n → the address the n-th trusted proxy saw, i.e. entry n from the right of
 * `X-Forwarded-For + [socket peer]` (the leftmost entry when the chain is shorter). Entries left of it are written by the
 * client and never read. A chosen entry that is not an IP address falls back to the socket peer. IPv4-mapped IPv6 counts
 * as IPv4; IPv6 clients are keyed by their /64. Without any usable address: `unknown`.
 */
export function clientRateKey(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trustedHops: number): string {
  const socketKey = addressKey(socketAddress) ?? "unknown";
  if (!(trustedHops > 0)) return socketKey;
  const chain = [...forwardedEntries(forwardedFor), socketAddress ?? ""];
  const chosen = chain[Math.max(0, chain.length - 1 - Math.floor(trustedHops))];
  return addressKey(chosen) ?? socketKey;
}
