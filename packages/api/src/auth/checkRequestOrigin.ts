import type { IncomingHttpHeaders } from "node:http";
import { USER_SESSION_COOKIE } from "./authenticate.ts";
import { readCookie } from "./readCookie.ts";

/** Methods that change nothing (RFC 9110 safe methods): never checked. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function serializedOrigin(value: string): string | null {
  if (value === "null") return null; // opaque origin (sandboxed frame, data: URL, file:)
  try {
    const origin = new URL(value).origin;
    return origin === "null" ? null : origin;
  } catch {
    return null;
  }
}

/**
 * The origins our own pages run on: `PUBLIC_BASE_URL`'s origin (the approval page, the explorer) and the configured
 * WebAuthn origins (`WEBAUTHN_ORIGIN`, where a passkey session cookie can be obtained). Unparsable entries are ignored.
 */
export function ownOrigins(publicBaseUrl: string, webauthnOrigins: readonly string[] = []): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const value of [publicBaseUrl, ...webauthnOrigins]) {
    const origin = serializedOrigin(value);
    if (origin) origins.add(origin);
  }
  return origins;
}

/**
 * Cross-site request forgery rule for the passkey session cookie (issue 14 §4). The browser attaches `al_session` to
 * any request to us, including a form another site POSTs (same-site pages get it even with `SameSite=Lax`), and
 * several state-changing endpoints read no body, so content-type checks do not stop such a form. So every request
 * with a state-changing method (anything but GET, HEAD, OPTIONS) that carries the session cookie must show it comes
 * from one of our pages: its `Origin` header is one of `origins` or, when a client sends no `Origin`,
 * `Sec-Fetch-Site: same-origin`. Requests without the cookie are not concerned (a bearer-token client, a receiver
 * calling /verify, the CLI), whatever their Origin. Returns null when the request may go on, else why it may not
 * (the caller answers 403 `cross_site_request`). Called once for every request, before routing (buildApp).
 */
export function checkRequestOrigin(method: string | undefined, headers: IncomingHttpHeaders, origins: ReadonlySet<string>): string | null {
  if (SAFE_METHODS.has((method ?? "GET").toUpperCase())) return null;
  if (readCookie(headers, USER_SESSION_COOKIE) === undefined) return null;
  const origin = headers.origin;
  if (origin !== undefined) {
    const serialized = serializedOrigin(origin);
    if (serialized && origins.has(serialized)) return null;
    return `this request carries the session cookie but comes from another origin (${origin.slice(0, 100)}); only ${[...origins].join(", ")} may use it`;
  }
  if (headers["sec-fetch-site"] === "same-origin") return null;
  return "this request carries the session cookie but proves no origin: send the Origin header (browsers do), or use a bearer token";
}
