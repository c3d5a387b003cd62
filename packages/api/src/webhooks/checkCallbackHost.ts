import { lookup as dnsLookup } from "node:dns/promises";
import { HostNotPublicError, resolvePublicAddresses, type HostLookup } from "@agent-ledger/core";
import { WebhookError } from "./WebhookError.ts";

export type Lookup = HostLookup;
const defaultLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Create-time SSRF check (production): every address the host resolves to must be public — core's
 * resolvePublicAddresses, the same rule the worker applies to the address it actually connects to at each
 * delivery (DNS rebinding). 400 `invalid_callback_url` when the host does not resolve, `callback_url_forbidden`
 * when any of its addresses is not public.
 */
export async function checkCallbackHost(url: URL, lookup: Lookup = defaultLookup): Promise<void> {
  try {
    await resolvePublicAddresses(url.hostname, lookup);
  } catch (error) {
    if (!(error instanceof HostNotPublicError)) throw error;
    if (error.code === "host_unresolvable") throw new WebhookError("invalid_callback_url", `callback_url host ${url.hostname} does not resolve`);
    throw new WebhookError("callback_url_forbidden", "callback_url resolves to a private, loopback, link-local or otherwise non-public address");
  }
}
