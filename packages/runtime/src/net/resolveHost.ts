import { lookup } from "node:dns/promises";

/** Resolves a host name to all its addresses (what a connection could reach): a core HostLookup. Injectable for tests. */
export type ResolveHost = (hostname: string) => Promise<{ address: string; family?: number }[]>;

/** The system resolver (`dns.lookup`, every address, in the resolver's order): the one DNS lookup of the SSRF adapter. */
export const resolveHost: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });
