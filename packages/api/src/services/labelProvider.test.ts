import { describe, expect, it } from "vitest";
import { labelProvider } from "./labelProvider.ts";

const labels = {
  entity_label: "Entity",
  address_label: "Address label",
  fp_label: "Fingerprint label",
  fp_address: "0x00000000000000000000000000000000000a11ce",
};

describe("labelProvider", () => {
  it("an address provider is its own address, labelled by its entity, else its address label, else null", () => {
    const a = { key: "0x00000000000000000000000000000000000b0b00", pattern: "address" as const, txCount: 2, amountSumWei: 2n ** 80n, byToken: [] };
    expect(labelProvider(a, labels)).toEqual({ ...a, address: a.key, fingerprint: null, label: "Entity" });
    expect(labelProvider(a, { ...labels, entity_label: null }).label).toBe("Address label");
    expect(labelProvider(a, undefined)).toEqual({ ...a, address: a.key, fingerprint: null, label: null });
  });

  it("a fingerprint provider takes label and address from its fingerprint label, else null", () => {
    const f = { key: "0x0a0b0c0d0e0f10111213", pattern: "fingerprint" as const, txCount: 1, amountSumWei: 5n, byToken: [] };
    expect(labelProvider(f, labels)).toEqual({ ...f, address: labels.fp_address, fingerprint: f.key, label: "Fingerprint label" });
    expect(labelProvider(f, undefined)).toEqual({ ...f, address: null, fingerprint: f.key, label: null });
  });
});
