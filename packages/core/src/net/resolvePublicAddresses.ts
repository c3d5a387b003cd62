import { isIP } from "node:net";
import { LedgerError } from "../errors.ts";
import { isForbiddenAddress } from "./isForbiddenAddress.ts";

/** Resolves a host name to every address a connection could reach (`dns.lookup(host, { all: true })`); injected. */
export type HostLookup = (hostname: string) => Promise<readonly { address: string; family?: number }[]>;

export type HostRefusal = "host_unresolvable" | "host_forbidden";

/** A host the SSRF rule refuses: it does not resolve, or one of its addresses is not public (`address`). */
export class HostNotPublicError extends LedgerError {
  declare readonly code: HostRefusal;
  constructor(
    code: HostRefusal,
    message: string,
    readonly address: string | null,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.name = "HostNotPublicError";
  }
}

/**
 * The SSRF rule for a host, shared by the API (create time) and the worker (every connection): an IP literal
 * (`[::1]` brackets allowed) is judged as it is, a name is resolved with `lookup`, and EVERY address must be public
 * (isForbiddenAddress) — one private answer among public ones refuses the host, since a connection may use any of
 * them. Returns the addresses with their family (read from the address itself); throws HostNotPublicError (`host_unresolvable` when the lookup
 * fails or answers nothing, with the lookup's error as `cause`; `host_forbidden` naming the first bad address).
 */
export async function resolvePublicAddresses(hostname: string, lookup: HostLookup): Promise<{ address: string; family: 4 | 6 }[]> {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  let answers: readonly { address: string; family?: number }[];
  if (isIP(host)) answers = [{ address: host }];
  else {
    try {
      answers = await lookup(host);
    } catch (cause) {
      throw new HostNotPublicError("host_unresolvable", `${host} does not resolve`, null, { cause });
    }
  }
  if (answers.length === 0) throw new HostNotPublicError("host_unresolvable", `${host} does not resolve`, null);
  const bad = answers.find((a) => isForbiddenAddress(a.address));
  if (bad) throw new HostNotPublicError("host_forbidden", `${host} resolves to a non-public address (${bad.address})`, bad.address);
  return answers.map((a) => ({ address: a.address, family: isIP(a.address) === 6 ? 6 : 4 }));
}
