import { HostNotPublicError, resolvePublicAddresses, type HostLookup } from "@agent-ledger/core";
import { CallbackNotAllowedError } from "./CallbackNotAllowedError.ts";
import { resolveHost } from "./resolveHost.ts";

/**
 * The SSRF policy for a callback URL. Outside production anything http(s) is allowed (tests and local
 * receivers live on loopback). In production the URL must be https and EVERY address its host resolves
 * to must be public (core resolvePublicAddresses — the rule the API applies at create time: anything
 * ipaddr.js does not call unicast, IPv4-mapped/translated/NAT64 forms judged by their IPv4). Returns the
 * addresses it checked.
 *
 * At create time this is the whole check; at delivery time the worker repeats it inside the socket's
 * own DNS lookup (createGuardedLookup), so the address connected to is the address checked.
 * Throws CallbackNotAllowedError.
 */
export async function assertCallbackAllowed(
  url: string | URL,
  options: { production: boolean; lookup?: HostLookup },
): Promise<{ url: URL; addresses: string[] }> {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch (cause) {
    throw new CallbackNotAllowedError("invalid_callback_url", "callback_url is not a valid URL", { cause });
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new CallbackNotAllowedError("invalid_callback_url", "callback_url must be an http(s) URL");
  }
  if (!options.production) return { url: parsed, addresses: [] };
  if (parsed.protocol !== "https:") throw new CallbackNotAllowedError("callback_url_not_https", "callback_url must use https in production");
  try {
    const addresses = await resolvePublicAddresses(parsed.hostname, options.lookup ?? resolveHost);
    return { url: parsed, addresses: addresses.map((a) => a.address) };
  } catch (error) {
    if (!(error instanceof HostNotPublicError)) throw error;
    if (error.code === "host_unresolvable")
      throw new CallbackNotAllowedError("callback_url_unresolvable", `callback_url host ${parsed.hostname} does not resolve`, { cause: error.cause });
    throw new CallbackNotAllowedError("callback_url_forbidden", `callback_url resolves to a non-public address (${error.address})`, { cause: error });
  }
}
