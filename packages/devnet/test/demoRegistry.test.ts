import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseRegistry } from "@agent-ledger/core";
import { getContractAddress, keccak256, slice, stringToHex, toHex, type Address } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { buildDemoRegistry, type DemoRegistry } from "../src/demo/buildDemoRegistry.ts";
import { demoKeys } from "../src/demo/demoKeys.ts";
import { demoMppServers } from "../src/demo/demoMppServers.ts";

const registry = JSON.parse(readFileSync(fileURLToPath(new URL("../../../registry/demo.json", import.meta.url)), "utf8")) as DemoRegistry;
const addr = (name: string) => privateKeyToAddress(keccak256(toHex(`agent-ledger-demo:${name}`))).toLowerCase();
/** keccak256(utf8(s))[0..9], computed here independently of the package's helper. */
const fp = (s: string) => slice(keccak256(stringToHex(s)), 0, 10);

describe("registry/demo.json", () => {
  it("equals what demoKeys derives (regenerate with scripts/writeDemoRegistry.ts)", () => {
    expect(registry).toEqual(buildDemoRegistry(demoKeys()));
  });

  it("is a valid registry v3 for the devnet (core parseRegistry: fingerprints checked against their values)", () => {
    expect(registry.registry_version).toBe(3);
    expect(registry.chain_id).toBe(31337);
    const parsed = parseRegistry(registry);
    expect(parsed.entities.find((e) => e.id === "demo-session-escrow")).toMatchObject({
      kind: "escrow",
      category: "escrow",
      wallets: [registry.escrows[0]!.address],
    });
  });

  it('uses keccak256("agent-ledger-demo:<name>") keys and nonce-0 CREATE addresses for both escrows', () => {
    const wallet = (id: string) => registry.entities.find((e) => e.id === id)?.wallets[0];
    for (const id of [
      "tempo-gateway-mpp",
      "demo-agent-alpha",
      "demo-agent-beta",
      "demo-agent-gamma",
      "weather-api-mpp",
      "search-api-mpp",
      "llm-inference-mpp",
      "rpc-node-mpp",
    ])
      expect(wallet(id)).toBe(addr(id));
    const gatewayEscrow = getContractAddress({ from: addr("escrow-deployer") as Address, nonce: 0n }).toLowerCase();
    expect(registry.settlement_contracts).toEqual([{ address: gatewayEscrow, label: "Demo gateway escrow" }]);
    const sessionEscrow = getContractAddress({ from: addr("session-escrow-deployer") as Address, nonce: 0n }).toLowerCase();
    expect(registry.escrows).toEqual([
      {
        id: "demo-session-escrow",
        address: sessionEscrow,
        abi: "legacy",
        label: "Demo MPP session escrow (StreamChannelEscrow)",
        source: "packages/devnet/contracts/StreamChannelEscrow.sol",
      },
    ]);
  });

  it("names every realm the demo serves by its serverId, except web-scraping (left out on purpose); client labels for the agents", () => {
    const keys = demoKeys();
    const served = demoMppServers(keys).flatMap((s) => s.realms.map((r) => r.realm));
    const named = new Map(registry.entities.flatMap((e) => (e.server_ids ?? []).map((s) => [s.value, { entity: e.id, ...s }] as const)));
    for (const realm of served) {
      if (realm.startsWith("web-scraping.")) {
        expect(named.has(realm)).toBe(false);
        continue;
      }
      expect(named.get(realm), realm).toMatchObject({ fingerprint: fp(realm), from: "host" });
    }
    expect([...named.keys()].sort()).toEqual(served.filter((r) => !r.startsWith("web-scraping.")).sort());
    // services behind the gateway have no wallet of their own: their charges are paid to the gateway
    for (const id of ["image-generation-mpp", "speech-to-text-mpp"])
      expect(registry.entities.find((e) => e.id === id)).toMatchObject({ category: "service", wallets: [] });
    expect(registry.client_labels).toEqual(keys.agents.map((a) => ({ fingerprint: fp(a.id), label: a.label })));
    expect(registry.fingerprint_labels.map((f) => f.fingerprint)).not.toContain(fp("web-scraping.gateway.mpp.localhost"));
  });

  it("has the expected shape: lowercase addresses, gamma tracks fees, faucets, providers, 2 of 3 v0.2 fingerprints labelled", () => {
    const json = JSON.stringify(registry);
    expect(json.match(/0x[0-9a-fA-F]{40}/g)!.every((a) => a === a.toLowerCase())).toBe(true);
    expect(registry.entities.filter((e) => e.track_fees).map((e) => e.id)).toEqual(["demo-agent-gamma"]);
    expect(registry.entities.filter((e) => e.id.endsWith("-mpp")).map((e) => e.id)).toEqual([
      "tempo-gateway-mpp",
      "weather-api-mpp",
      "search-api-mpp",
      "llm-inference-mpp",
      "image-generation-mpp",
      "speech-to-text-mpp",
      "rpc-node-mpp",
    ]);
    expect(registry.address_labels.filter((l) => l.category === "faucet").every((l) => l.label === "Devnet faucet")).toBe(true);
    expect(registry.address_labels.filter((l) => l.category === "provider")).toHaveLength(4); // 3 gateway providers + the LLM split's compute provider
    expect(registry.fingerprint_labels).toHaveLength(2);
    for (const f of registry.fingerprint_labels) expect(f.fingerprint).toMatch(/^0x[0-9a-f]{20}$/);
    expect(demoKeys().routedServices.filter((r) => !r.fingerprintLabel)).toHaveLength(1);
  });
});
