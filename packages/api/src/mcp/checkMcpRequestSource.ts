import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";

/** Who may call `/mcp` from a browser, and under which host names the API may be addressed (docs/mcp.md). */
export interface McpRequestSources {
  /** Serialized origins (`https://ledger.example.com`) whose pages may call /mcp, besides loopback and same-origin pages. */
  origins: ReadonlySet<string>;
  /** Host names (lowercase, no port) the API answers to, besides loopback names and IP literals. */
  hosts: ReadonlySet<string>;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `value` (a `Host` header) as the host of a URL of `protocol` (`[::1]:3000`, default port dropped), or null when it is not a host. */
function parseHost(value: string, protocol = "http:"): URL | null {
  if (!/^[^\s/?#@\\]+$/.test(value)) return null;
  try {
    return new URL(`${protocol}//${value}`);
  } catch {
    return null;
  }
}

/** Whether `name` is an IP literal (`127.0.0.1`, `[::1]`): such a Host cannot be a rebound DNS name. */
const isIpLiteral = (name: string) => isIP(name.replace(/^\[|\]$/g, "")) !== 0;

/**
 * The MCP Streamable HTTP transport's DNS-rebinding rule (the spec: servers MUST validate `Origin`), checked before
 * anything else on /mcp. `Host` must name this API: a loopback name, an IP literal (a rebinding attack needs a DNS
 * name that resolves to us), or one of `sources.hosts`. `Origin`, when present (browsers send it; MCP clients outside a
 * browser do not, and are let through), must be one of `sources.origins`, a loopback origin (a page on this machine,
 * e.g. the MCP Inspector), or the page's own origin on an allowed `Host`. Returns null when the request may go on,
 * else why not (the caller answers 403 `cross_site_request`).
 */
export function checkMcpRequestSource(headers: IncomingHttpHeaders, sources: McpRequestSources): string | null {
  const host = headers.host;
  if (host !== undefined) {
    const name = parseHost(host)?.hostname.toLowerCase();
    if (!name || !(LOOPBACK_NAMES.has(name) || isIpLiteral(name) || sources.hosts.has(name))) {
      return `the Host ${JSON.stringify(host.slice(0, 100))} is not a name of this API (DNS rebinding protection): use its configured or a loopback address`;
    }
  }
  const origin = headers.origin;
  if (origin === undefined) return null;
  let url: URL | null = null;
  try {
    url = origin === "null" ? null : new URL(origin);
  } catch {
    url = null;
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:")) {
    if (sources.origins.has(url.origin)) return null;
    if (LOOPBACK_NAMES.has(url.hostname.toLowerCase())) return null;
    if (host !== undefined && url.host === parseHost(host, url.protocol)?.host) return null; // same origin, on an allowed Host
  }
  return `pages of ${JSON.stringify(origin.slice(0, 100))} may not call /mcp (the MCP server validates Origin): allowed are this API's own origin, loopback pages and MCP_ALLOWED_ORIGINS`;
}
