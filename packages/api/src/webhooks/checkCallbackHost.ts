import type { HostLookup } from "@agent-ledger/core";
import { assertCallbackAllowed, CallbackNotAllowedError } from "@agent-ledger/runtime";
import { WebhookError } from "./WebhookError.ts";

export type Lookup = HostLookup;

/**
 * Create-time SSRF check (production): every address the host resolves to must be public — the runtime's SSRF
 * adapter (assertCallbackAllowed over core's resolvePublicAddresses), the same one the worker applies to the address
 * it actually connects to at each delivery (DNS rebinding). The URL is already validated (https in production).
 * 400 `invalid_callback_url` when the host does not resolve, `callback_url_forbidden` when any of its addresses is not public.
 */
export async function checkCallbackHost(url: URL, lookup?: Lookup): Promise<void> {
  try {
    await assertCallbackAllowed(url, { production: true, lookup });
  } catch (error) {
    if (!(error instanceof CallbackNotAllowedError)) throw error;
    if (error.code === "callback_url_forbidden") {
      throw new WebhookError("callback_url_forbidden", "callback_url resolves to a private, loopback, link-local or otherwise non-public address");
    }
    if (error.code === "callback_url_unresolvable") throw new WebhookError("invalid_callback_url", `callback_url host ${url.hostname} does not resolve`);
    throw new WebhookError("invalid_callback_url", error.shortMessage);
  }
}
