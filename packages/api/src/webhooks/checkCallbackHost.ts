import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isForbiddenAddress } from "@agent-ledger/core";
import { WebhookError } from "./WebhookError.ts";

export type Lookup = (hostname: string) => Promise<{ address: string }[]>;
const defaultLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Create-time SSRF check (production): every address the host resolves to must be public. The
 * worker checks again on the address it actually connects to at each delivery (DNS rebinding).
 */
export async function checkCallbackHost(url: URL, lookup: Lookup = defaultLookup): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host)).map((a) => a.address);
    } catch {
      throw new WebhookError("invalid_callback_url", `callback_url host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0 || addresses.some(isForbiddenAddress)) {
    throw new WebhookError("callback_url_forbidden", "callback_url resolves to a private, loopback, link-local or otherwise non-public address");
  }
}
