import { HostNotPublicError, resolvePublicAddresses, type HostLookup } from "@agent-ledger/core";
import type { LookupFunction } from "node:net";
import { CallbackNotAllowedError } from "./CallbackNotAllowedError.ts";
import { ipFamily } from "./ipFamily.ts";
import { resolveHost } from "./resolveHost.ts";

/**
 * A `lookup` for http(s).Agent: the socket connects only to addresses this function returns, so
 * checking here is checking the address actually connected to (a DNS answer that changes between
 * the create-time check and the delivery — rebinding — is caught). In production any forbidden
 * address in the answer refuses the connection before it is attempted (core resolvePublicAddresses).
 */
export function createGuardedLookup(options: { production: boolean; resolve?: HostLookup }): LookupFunction {
  const resolve = options.resolve ?? resolveHost;
  return (hostname, lookupOptions, callback) => {
    // Production: core's resolvePublicAddresses, the create-time rule, on the answer the socket will use.
    const answer = options.production
      ? resolvePublicAddresses(hostname, resolve)
      : resolve(hostname).then((answers) => answers.map((a) => ({ address: a.address, family: ipFamily(a.address) })));
    answer.then(
      (addresses) => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const list = family ? addresses.filter((a) => a.family === family) : addresses;
        if (list.length === 0) {
          const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname });
          callback(error, "", 4);
          return;
        }
        if (lookupOptions.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      },
      (error: unknown) => {
        if (error instanceof HostNotPublicError && error.code === "host_forbidden") {
          callback(
            new CallbackNotAllowedError("callback_url_forbidden", `${hostname} resolves to a non-public address (${error.address})`, { cause: error }),
            "",
            4,
          );
        } else if (error instanceof HostNotPublicError) {
          // The resolver's own error (ENOTFOUND, …) when there is one, so the delivery log reads like a plain DNS failure.
          callback(
            (error.cause ?? Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname })) as NodeJS.ErrnoException,
            "",
            4,
          );
        } else callback(error as NodeJS.ErrnoException, "", 4);
      },
    );
  };
}
