import { lookup } from "node:dns/promises";
import type { HostLookup } from "@agent-ledger/core";

/** Resolves a host name to all its addresses (what a connection could reach): core's HostLookup. Injectable for tests. */
export type ResolveHost = HostLookup;

/** The system resolver (`dns.lookup`, every address, in the resolver's order): the one DNS lookup of the SSRF adapter. */
export const resolveHost: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });
