import { isForbiddenAddress } from "@agent-ledger/core";
import { isIP } from "node:net";
import { CallbackNotAllowedError } from "./CallbackNotAllowedError.ts";
import { bareHost, resolveHost, type ResolveHost } from "./resolveHost.ts";

/**
 * The SSRF policy for a callback URL. Outside production anything http(s) is allowed (tests and local
 * receivers live on loopback). In production the URL must be https and EVERY address its host resolves
 * to must be public (core isForbiddenAddress: loopback, private, link-local incl. 169.254.169.254,
 * CGNAT, multicast, reserved, IPv4-mapped/NAT64/6to4 forms). Returns the addresses it checked.
 *
 * At create time this is the whole check; at delivery time the worker repeats it inside the socket's
 * own DNS lookup (createGuardedLookup), so the address connected to is the address checked.
 * Throws CallbackNotAllowedError.
 */
export async function assertCallbackAllowed(
  url: string | URL,
  options: { production: boolean; lookup?: ResolveHost },
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
  const host = bareHost(parsed.hostname);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await (options.lookup ?? resolveHost)(host)).map((a) => a.address);
    } catch (cause) {
      throw new CallbackNotAllowedError("callback_url_unresolvable", `callback_url host ${host} does not resolve`, { cause });
    }
  }
  if (addresses.length === 0) throw new CallbackNotAllowedError("callback_url_unresolvable", `callback_url host ${host} does not resolve`);
  const bad = addresses.find((a) => isForbiddenAddress(a));
  if (bad !== undefined) {
    throw new CallbackNotAllowedError("callback_url_forbidden", `callback_url resolves to a non-public address (${bad})`);
  }
  return { url: parsed, addresses };
}
