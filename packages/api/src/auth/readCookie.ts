import type { IncomingHttpHeaders } from "node:http";

/**
 * The one cookie reader: the value of cookie `name` in the request's Cookie header, percent-decoded, or undefined when
 * absent. A malformed escape reads as the raw value (never a throw, never absent): it then matches no session (401),
 * fails a challenge id's format check, and still counts as "carries the cookie" for the cross-site rule.
 */
export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers.cookie;
  if (!raw) return undefined;
  for (const part of raw.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}
