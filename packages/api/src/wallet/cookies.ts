import { readCookie } from "../auth/readCookie.ts";

/** `Set-Cookie` value: HttpOnly, SameSite=Lax, `Secure` when `secure` (production). `maxAge` 0 clears it. */
export function serializeCookie(name: string, value: string, options: { maxAgeSeconds: number; path: string; secure: boolean }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path}`, `Max-Age=${options.maxAgeSeconds}`, "HttpOnly", "SameSite=Lax"];
  if (options.maxAgeSeconds === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/** A cookie's value from a Cookie header: the one cookie reader (auth/readCookie.ts), for the wallet's callers. */
export function readCookieSafe(header: string | undefined, name: string): string | undefined {
  return readCookie({ cookie: header }, name);
}
