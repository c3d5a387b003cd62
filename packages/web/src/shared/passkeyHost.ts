// A passkey belongs to a domain (the WebAuthn RP ID, WEBAUTHN_RP_ID): the browser refuses the prompt on a page whose
// host is not that domain or one below it — on a bare IP address always (127.0.0.1 is no domain). `npm start` serves
// the pages on both http://127.0.0.1:3000 and http://localhost:3000; the passkey works only on the second. Rather than
// the browser's "invalid domain" error, the page says where to go.

/** The page's address at the passkey's domain: same scheme, port, path and query, host = `rpId`. */
export class PasskeyHostError extends Error {
  constructor(
    readonly rpId: string,
    readonly url: string,
  ) {
    super(`Passkeys of this site belong to ${rpId}, and this page is open at another address. Open ${url} to use your passkey.`);
    this.name = "PasskeyHostError";
  }
}

/** Throws PasskeyHostError when a passkey for `rpId` cannot be used on the page at `href`. No RP ID: nothing to check. */
export function checkPasskeyHost(rpId: string | undefined, href: string): void {
  if (!rpId) return;
  const url = new URL(href);
  const host = url.hostname.toLowerCase();
  const rp = rpId.toLowerCase();
  if (host === rp || host.endsWith(`.${rp}`)) return;
  url.hostname = rp;
  throw new PasskeyHostError(rp, url.toString());
}

/** The RP ID of WebAuthn options as our API answers them (`{ options }`, `{ publicKey }` or bare; `rpId` or `rp.id`). */
export function rpIdOf(options: unknown): string | undefined {
  const b = options as { options?: unknown; publicKey?: unknown } | null;
  const o = (b?.options ?? b?.publicKey ?? options) as { rpId?: unknown; rp?: { id?: unknown } } | null;
  const id = o?.rpId ?? o?.rp?.id;
  return typeof id === "string" && id ? id : undefined;
}
