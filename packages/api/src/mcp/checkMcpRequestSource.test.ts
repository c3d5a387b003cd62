import { describe, expect, it } from "vitest";
import { checkMcpRequestSource } from "./checkMcpRequestSource.ts";
import { resolveMcpRequestSources } from "./resolveMcpRequestSources.ts";

const sources = resolveMcpRequestSources({
  PUBLIC_BASE_URL: "https://ledger.example.com",
  MCP_ALLOWED_ORIGINS: "https://agents.example.org, not a url",
  MCP_ALLOWED_HOSTS: "api-internal",
});
const check = (headers: Record<string, string>) => checkMcpRequestSource(headers, sources);

describe("checkMcpRequestSource", () => {
  it("lets through clients without Origin on a host name of this API (configured, loopback, an IP literal)", () => {
    for (const host of ["ledger.example.com", "LEDGER.example.com:443", "localhost:3000", "127.0.0.1:3000", "[::1]:3000", "10.1.2.3", "api-internal:3000"]) {
      expect(check({ host }), host).toBeNull();
    }
    expect(check({})).toBeNull(); // HTTP/1.0 without Host
  });

  it("refuses a Host that is another (rebound) name, or not a host at all", () => {
    for (const host of ["evil.example", "evil.example:3000", "127.0.0.1@evil.example", "localhost/x", "", "a b"]) {
      expect(check({ host }), host).toMatch(/Host/);
    }
  });

  it("allows the configured origins, loopback pages and the page's own origin; refuses every other Origin", () => {
    for (const origin of ["https://ledger.example.com", "https://agents.example.org", "http://localhost:6274", "http://127.0.0.1:5173", "http://[::1]:8080"]) {
      expect(check({ host: "ledger.example.com", origin }), origin).toBeNull();
    }
    expect(check({ host: "10.1.2.3:3000", origin: "http://10.1.2.3:3000" })).toBeNull(); // same origin
    for (const origin of ["https://evil.example", "https://ledger.example.com.evil.example", "null", "file://", "chrome-extension://abc", "garbage"]) {
      expect(check({ host: "ledger.example.com", origin }), origin).toMatch(/may not call \/mcp/);
    }
    expect(check({ host: "10.1.2.3:3000", origin: "http://10.1.2.3:4000" })).toMatch(/may not call/); // another port is another origin
  });

  it("defaults the public origin to http://localhost:3000 and ignores entries that are not http(s) URLs", () => {
    const d = resolveMcpRequestSources({ MCP_ALLOWED_ORIGINS: "ftp://x.example,https://ok.example" });
    expect([...d.origins].sort()).toEqual(["http://localhost:3000", "https://ok.example"]);
    expect([...d.hosts].sort()).toEqual(["localhost", "ok.example"]);
  });
});
