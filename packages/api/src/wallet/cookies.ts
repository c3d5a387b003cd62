/** `Set-Cookie` value: HttpOnly, SameSite=Lax, `Secure` when `secure` (production). `maxAge` 0 clears it. */
export function serializeCookie(name: string, value: string, options: { maxAgeSeconds: number; path: string; secure: boolean }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path}`, `Max-Age=${options.maxAgeSeconds}`, "HttpOnly", "SameSite=Lax"];
  if (options.maxAgeSeconds === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/** A cookie's value from the request, or undefined (malformed percent-encoding reads as absent, never throws). */
export function readCookieSafe(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) {
      try {
        return decodeURIComponent(part.slice(at + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
