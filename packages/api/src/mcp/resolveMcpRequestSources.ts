import type { McpRequestSources } from "./checkMcpRequestSource.ts";

const list = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);

/**
 * Who may call /mcp (checkMcpRequestSource.ts), from the API's settings: the origins of `PUBLIC_BASE_URL` (default
 * `http://localhost:3000`, the API's own public origin) and `WEBAUTHN_ORIGIN` (our pages), plus `MCP_ALLOWED_ORIGINS`
 * (comma-separated origins of browser-based MCP clients); the host names of all of these, plus `MCP_ALLOWED_HOSTS`
 * (comma-separated names the API is reached under, e.g. behind a proxy that keeps the Host). Unparsable entries are ignored.
 */
export function resolveMcpRequestSources(env: Record<string, string | undefined>): McpRequestSources {
  const origins = new Set<string>();
  const hosts = new Set<string>(list(env.MCP_ALLOWED_HOSTS).map((h) => h.toLowerCase()));
  for (const value of [env.PUBLIC_BASE_URL || "http://localhost:3000", ...list(env.WEBAUTHN_ORIGIN), ...list(env.MCP_ALLOWED_ORIGINS)]) {
    try {
      const url = new URL(value);
      if (url.protocol !== "http:" && url.protocol !== "https:") continue;
      origins.add(url.origin);
      hosts.add(url.hostname.toLowerCase());
    } catch {
      // not a URL: ignored
    }
  }
  return { origins, hosts };
}
