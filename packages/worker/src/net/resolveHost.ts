import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/** Resolves a host name to all its addresses (what a connection could reach). Injectable for tests. */
export type ResolveHost = (hostname: string) => Promise<{ address: string; family?: number }[]>;

export const resolveHost: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** `[::1]` → `::1`: URL.hostname keeps the brackets of an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
}

export function ipFamily(address: string): 4 | 6 {
  return isIP(address) === 6 ? 6 : 4;
}
