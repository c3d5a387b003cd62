import { describe, expect, it } from "vitest";
import { addEntityToRegistryJson } from "./addEntityToRegistryJson.ts";

const doc = { registry_version: 3, network: "mainnet", entities: [{ id: "a-mpp", label: "A", category: "x", wallets: [] }] };

describe("addEntityToRegistryJson", () => {
  it("appends a new entity with lowercase wallets and bumps the version", () => {
    const next = addEntityToRegistryJson(doc, { id: "new-agent", label: "New", category: "agent", wallets: ["0xABCDEF0000000000000000000000000000000001"] });
    expect(next.registry_version).toBe(4);
    expect(next.entities).toEqual([
      doc.entities[0],
      { id: "new-agent", label: "New", category: "agent", active: true, track_fees: false, wallets: ["0xabcdef0000000000000000000000000000000001"] },
    ]);
  });
  it("replaces an entity with the same id", () => {
    const next = addEntityToRegistryJson(doc, { id: "a-mpp", label: "A2", category: "y", wallets: [] });
    expect((next.entities as { label: string }[]).map((e) => e.label)).toEqual(["A2"]);
  });
  it("refuses an entity that would make the registry invalid", () => {
    expect(() => addEntityToRegistryJson(doc, { id: "Bad Id", label: "B", category: "x", wallets: ["0x1"] })).toThrow(/registry file is invalid/);
  });
});
