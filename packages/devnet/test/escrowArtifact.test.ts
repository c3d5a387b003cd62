import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { keccak256, parseAbiItem, toEventSelector, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { TOPICS } from "../src/constants.ts";
import { abi } from "../src/contracts/GatewayEscrow.artifact.ts";
import { compileGatewayEscrow } from "../src/contracts/compileGatewayEscrow.ts";
import { renderArtifact } from "../src/contracts/renderArtifact.ts";

const SIGNATURE = "event Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)";

describe("GatewayEscrow artifact", () => {
  it("is exactly what scripts/compileContracts.ts produces from contracts/GatewayEscrow.sol (no drift)", () => {
    const committed = readFileSync(fileURLToPath(new URL("../src/contracts/GatewayEscrow.artifact.ts", import.meta.url)), "utf8");
    expect(renderArtifact("GatewayEscrow", compileGatewayEscrow())).toBe(committed);
  });

  it("declares exactly the Settlement event of the ledger spec", () => {
    const event = abi.find((x) => x.type === "event" && x.name === "Settlement")!;
    const shape = (xs: readonly { name?: string; type: string; indexed?: boolean }[]) => xs.map((x) => `${x.type}${x.indexed ? " indexed" : ""} ${x.name}`);
    expect(shape(event.inputs)).toEqual(shape(parseAbiItem(SIGNATURE).inputs));
    expect(abi.filter((x) => x.type === "event")).toHaveLength(1);
  });

  it("Settlement topic0 = keccak of its signature (0x1c5bd824…), not the mainnet 0x92ed5fe0… (= ChannelClosed)", () => {
    const event = abi.find((x) => x.type === "event" && x.name === "Settlement")!;
    expect(toEventSelector(event)).toBe("0x1c5bd824a83e6a261a40ebe83140faad843f622f4364a435f32d10ff9fdedd3f");
    expect(toEventSelector(event)).toBe(TOPICS.Settlement);
    // The brief's 0x92ed5fe0… cannot be produced by an event named Settlement: it is the hash of ChannelClosed
    // with the same argument types (the mainnet MPP channel escrow's event). The ledger accepts both ids.
    expect(keccak256(toHex("ChannelClosed(bytes32,address,address,uint256,uint256)"))).toBe(TOPICS.SettlementMainnet);
    expect(TOPICS.SettlementMainnet).toBe("0x92ed5fe0fe56b3f4185e688efb342e92a4492b9df29ad5de596c44e64d097b51");
  });
});
