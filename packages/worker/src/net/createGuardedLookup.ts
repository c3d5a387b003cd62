import { isForbiddenAddress } from "@agent-ledger/core";
import type { LookupFunction } from "node:net";
import { CallbackNotAllowedError } from "./CallbackNotAllowedError.ts";
import { ipFamily, resolveHost, type ResolveHost } from "./resolveHost.ts";

/**
 * A `lookup` for http(s).Agent: the socket connects only to addresses this function returns, so
 * checking here is checking the address actually connected to (a DNS answer that changes between
 * the create-time check and the delivery — rebinding — is caught). In production any forbidden
 * address in the answer refuses the connection before it is attempted.
 */
export function createGuardedLookup(options: { production: boolean; resolve?: ResolveHost }): LookupFunction {
  const resolve = options.resolve ?? resolveHost;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (answers) => {
        let list = answers.map((a) => ({ address: a.address, family: a.family ?? ipFamily(a.address) }));
        if (options.production) {
          const bad = list.find((a) => isForbiddenAddress(a.address));
          if (bad) {
            callback(new CallbackNotAllowedError("callback_url_forbidden", `${hostname} resolves to a non-public address (${bad.address})`), "", 4);
            return;
          }
        }
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        if (family) list = list.filter((a) => a.family === family);
        if (list.length === 0) {
          const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname });
          callback(error, "", 4);
          return;
        }
        if (lookupOptions.all) callback(null, list);
        else callback(null, list[0]!.address, list[0]!.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, "", 4),
    );
  };
}
