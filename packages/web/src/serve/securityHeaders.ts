/**
 * Headers of every HTML page: a strict Content Security Policy (only our own scripts and styles, no inline code, no
 * framing, no base or form targets elsewhere), no sniffing, no referrer beyond the origin.
 * `extra` adds directives (GraphiQL's Monaco editor needs inline <style> elements and same-origin workers).
 */
export function securityHeaders(options: { connectSrc?: string[]; extra?: Record<string, string>; referrer?: string } = {}): Record<string, string> {
  const directives: Record<string, string> = {
    "default-src": "'none'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": ["'self'", ...(options.connectSrc ?? [])].join(" "),
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
    ...options.extra,
  };
  return {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": options.referrer ?? "strict-origin-when-cross-origin",
    "cross-origin-opener-policy": "same-origin",
    "content-security-policy": Object.entries(directives)
      .map(([k, v]) => `${k} ${v}`)
      .join("; "),
  };
}
