// `npm run registry -- discover`: a real mppx 0.11.0 server on loopback answers 402 with its challenge (no chain is
// asked for a challenge), read by readPaymentChallenge and by the CLI process; bad URLs and answers fail in one line.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { mppFingerprint, parseRegistry } from "@agent-ledger/core";
import { Mppx, tempo } from "mppx/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiscoveryError } from "../src/registry/applyDiscovery.ts";
import { readPaymentChallenge } from "../src/registry/readPaymentChallenge.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const USDC = "0x20c000000000000000000000b9537d11c60e8b50";
const RECIPIENT = "0x00000000000000000000000000000000000000a1";
const REALM = "discover-probe.local";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;
async function listen(handler: Handler): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((error) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The CLI as `npm run registry` runs it (sources, tsx), in the repository root; never throws. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--conditions=agent-ledger-source", "--import", "tsx", "packages/indexer/src/registryMain.ts", ...args],
      { cwd: ROOT, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe("registry discover against a real mppx server on loopback", () => {
  let mppx: Awaited<ReturnType<typeof listen>>;
  let plain: Awaited<ReturnType<typeof listen>>;
  let bad: Awaited<ReturnType<typeof listen>>;
  let dir: string;
  beforeAll(async () => {
    const payment = Mppx.create({
      realm: REALM,
      secretKey: "registry-discover-test-secret-0123456789abcdef",
      methods: [tempo.charge({ currency: USDC, recipient: RECIPIENT, chainId: 4217 })],
    });
    mppx = await listen(async (req, res) => {
      const result = await Mppx.toNodeListener(payment.charge({ amount: "0.01", description: "discover test" }))(req, res);
      if (result.status === 402) return;
      res.end("paid");
    });
    plain = await listen((_req, res) => {
      res.end("no payment needed");
    });
    bad = await listen((req, res) => {
      res.statusCode = 402;
      res.setHeader(
        "www-authenticate",
        req.url === "/bearer" ? 'Bearer realm="x"' : 'Payment id="1", realm="r", method="tempo", intent="charge", request="%%%not-base64%%%"',
      );
      res.end();
    });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "ledger-discover-"));
  });
  afterAll(async () => {
    await Promise.all([mppx?.close(), plain?.close(), bad?.close()]);
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("readPaymentChallenge reads recipient, currency, chain id and realm (→ serverId) from mppx's own challenge", async () => {
    const now = new Date("2026-11-27T12:00:00.000Z");
    expect(await readPaymentChallenge(`${mppx.url}/v1/thing`, { now: () => now })).toEqual({
      url: `${mppx.url}/v1/thing`,
      at: "2026-11-27T12:00:00.000Z",
      method: "tempo",
      intent: "charge",
      realm: REALM,
      server_id: mppFingerprint(REALM),
      recipient: RECIPIENT,
      currency: USDC,
      chain_id: 4217,
      escrow_contract: null,
    });
  });

  it("refuses a bad URL, no answer, an answer other than 402 and a header mppx cannot parse, each in one line", async () => {
    const reason = async (url: string) => {
      try {
        await readPaymentChallenge(url, { timeoutMs: 5_000 });
      } catch (error) {
        expect(error).toBeInstanceOf(DiscoveryError);
        return (error as Error).message;
      }
      return "no error";
    };
    expect(await reason("not a url")).toBe('"not a url" is not a URL (expected http:// or https://…)');
    expect(await reason("ftp://127.0.0.1/x")).toBe('"ftp://127.0.0.1/x" is not an http(s) URL');
    const closed = await listen(() => undefined);
    await closed.close();
    expect(await reason(`${closed.url}/`)).toBe(`GET ${closed.url}/ failed: ECONNREFUSED`);
    expect(await reason(`${plain.url}/`)).toBe(`GET ${plain.url}/ answered HTTP 200, not 402 Payment Required: there is no payment challenge to read`);
    expect(await reason(`${bad.url}/bearer`)).toBe(
      `${bad.url}/bearer answered 402, but its WWW-Authenticate header is not a valid MPP Payment challenge: No Payment schemes found.`,
    );
    expect(await reason(`${bad.url}/garbled`)).toMatch(
      new RegExp(`^${bad.url}/garbled answered 402, but its WWW-Authenticate header is not a valid MPP Payment challenge: \\S`),
    );
    for (const url of [`${bad.url}/garbled`, `${plain.url}/`]) expect(await reason(url)).not.toMatch(/\n/);
  });

  it("the CLI prints the discovery as JSON, and --write records it on the matching entity with its source", async () => {
    const file = path.join(dir, "registry.json");
    await fs.writeFile(
      file,
      JSON.stringify({
        registry_version: 3,
        network: "devnet",
        chain_id: 4217,
        tokens: [{ address: USDC, symbol: "USDC.e", decimals: 6, currency: "USD" }],
        entities: [{ id: "probe-mpp", label: "Probe", category: "service", service_url: mppx.url }],
      }),
    );
    const run = await cli(["discover", `${mppx.url}/v1/thing`, "--write", file]);
    expect(run.code, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({
      url: `${mppx.url}/v1/thing`,
      realm: REALM,
      server_id: mppFingerprint(REALM),
      recipient: RECIPIENT,
      currency: USDC,
      chain_id: 4217,
    });
    expect(printed.source).toBe(`discovered ${mppx.url}/v1/thing ${printed.at}`);
    expect(Date.now() - Date.parse(printed.at)).toBeLessThan(60_000);
    const written = parseRegistry(JSON.parse(await fs.readFile(file, "utf8")));
    expect(written.entities[0]).toMatchObject({
      id: "probe-mpp",
      wallets: [RECIPIENT],
      walletSources: { [RECIPIENT]: printed.source },
      serverIds: [{ fingerprint: mppFingerprint(REALM), from: "realm", value: REALM, source: printed.source }],
    });
    expect(run.stderr).toContain(`${file}: discovery recorded`);
  });

  it("the CLI fails with one `registry: …` line, exit 1 and no stack, on a non-402 answer, a malformed header and a bad URL", async () => {
    const urls = [`${plain.url}/`, `${bad.url}/garbled`, "not-a-url"];
    const runs = await Promise.all(urls.map((url) => cli(["discover", url])));
    for (const [i, run] of runs.entries()) {
      const url = urls[i];
      expect(run.code, url).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n"), url).toHaveLength(1);
      expect(run.stderr).toMatch(/^registry: /);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
