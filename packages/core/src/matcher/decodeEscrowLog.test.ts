import { encodeAbiParameters, encodeEventTopics, getAddress, keccak256, parseAbiItem, toBytes, type AbiEvent, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { INDEXED_TOPICS, LEGACY_ESCROW_TOPICS, PRECOMPILE_ESCROW_TOPICS, SESSION_ESCROW_TOPICS, SETTLEMENT_TOPIC_MAINNET } from "./constants.ts";
import { decodeEscrowLog } from "./decodeEscrowLog.ts";
import type { RawLog } from "./types.ts";

// The two escrows' events, written from their public declarations: legacy TempoStreamChannel (mppx
// src/tempo/legacy/session/escrow.abi.ts; tempoxyz/tempo tips/ref-impls/src/interfaces/ITempoStreamChannel.sol) and
// the TIP-1034 precompile (tempoxyz/tempo crates/contracts/src/precompiles/tip20_channel_reserve.rs).
const LEGACY = {
  channelOpened:
    "event ChannelOpened(bytes32 indexed channelId, address indexed payer, address indexed payee, address token, address authorizedSigner, bytes32 salt, uint256 deposit)",
  topUp: "event TopUp(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 additionalDeposit, uint256 newDeposit)",
  settled:
    "event Settled(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 cumulativeAmount, uint256 deltaPaid, uint256 newSettled)",
  closeRequested: "event CloseRequested(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 closeGraceEnd)",
  closeRequestCancelled: "event CloseRequestCancelled(bytes32 indexed channelId, address indexed payer, address indexed payee)",
  channelClosed:
    "event ChannelClosed(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 settledToPayee, uint256 refundedToPayer)",
  channelExpired: "event ChannelExpired(bytes32 indexed channelId, address indexed payer, address indexed payee)",
} as const;
const PRECOMPILE = {
  channelOpened:
    "event ChannelOpened(bytes32 indexed channelId, address indexed payer, address indexed payee, address operator, address token, address authorizedSigner, bytes32 salt, bytes32 expiringNonceHash, uint96 deposit)",
  topUp: "event TopUp(bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 additionalDeposit, uint96 newDeposit)",
  settled:
    "event Settled(bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 cumulativeAmount, uint96 deltaPaid, uint96 newSettled)",
  closeRequested: "event CloseRequested(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 closeGraceEnd)",
  closeRequestCancelled: "event CloseRequestCancelled(bytes32 indexed channelId, address indexed payer, address indexed payee)",
  channelClosed: "event ChannelClosed(bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 settledToPayee, uint96 refundedToPayer)",
} as const;

/** `Name(type,type,…)` of an event declaration. */
const signature = (decl: string) => {
  const e = parseAbiItem(decl) as AbiEvent;
  return `${e.name}(${e.inputs.map((i) => i.type).join(",")})`;
};

const LEGACY_ESCROW = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
const PRECOMPILE_ESCROW = "0x4d50500000000000000000000000000000000000";
const USDC_E = "0x20c000000000000000000000b9537d11c60e8b50";
const PAYER = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
const PAYEE = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe";
const CHANNEL = `0x${"c1".repeat(32)}` as Hex;

function eventLog(decl: string, escrow: string, values: readonly unknown[]): RawLog {
  const event = parseAbiItem(decl) as AbiEvent;
  const topics = encodeEventTopics({ abi: [event], args: { channelId: CHANNEL, payer: getAddress(PAYER), payee: getAddress(PAYEE) } } as never);
  const data = encodeAbiParameters(
    event.inputs.filter((i) => !i.indexed),
    values as never,
  );
  return {
    blockNumber: 1n,
    blockHash: "0x" + "0".repeat(64),
    blockTimestamp: 0,
    txHash: "0x" + "1".repeat(64),
    txIndex: 0,
    logIndex: 7,
    address: escrow,
    topics: topics as string[],
    data,
  };
}
const base = { escrow: LEGACY_ESCROW, channelId: CHANNEL, payer: PAYER, payee: PAYEE, logIndex: 7 };
const pbase = { ...base, escrow: PRECOMPILE_ESCROW };

describe("escrow topic0s are keccak256 of the declared signatures", () => {
  it("legacy TempoStreamChannel", () => {
    for (const [name, decl] of Object.entries(LEGACY)) {
      expect(LEGACY_ESCROW_TOPICS[name as keyof typeof LEGACY], name).toBe(keccak256(toBytes(signature(decl))));
    }
    expect(signature(LEGACY.settled)).toBe("Settled(bytes32,address,address,uint256,uint256,uint256)");
    expect(LEGACY_ESCROW_TOPICS.channelClosed).toBe(SETTLEMENT_TOPIC_MAINNET);
  });
  it("TIP-1034 precompile (uint96 amounts: other ids, except the two events without amounts and CloseRequested)", () => {
    for (const [name, decl] of Object.entries(PRECOMPILE)) {
      expect(PRECOMPILE_ESCROW_TOPICS[name as keyof typeof PRECOMPILE], name).toBe(keccak256(toBytes(signature(decl))));
    }
    expect(signature(PRECOMPILE.channelOpened)).toBe("ChannelOpened(bytes32,address,address,address,address,address,bytes32,bytes32,uint96)");
    expect(PRECOMPILE_ESCROW_TOPICS.settled).not.toBe(LEGACY_ESCROW_TOPICS.settled);
    expect(PRECOMPILE_ESCROW_TOPICS.closeRequested).toBe(LEGACY_ESCROW_TOPICS.closeRequested);
  });
  it("the indexer asks the node for every escrow event v0.3 reads", () => {
    for (const t of SESSION_ESCROW_TOPICS) expect(INDEXED_TOPICS).toContain(t);
    expect(new Set(INDEXED_TOPICS).size).toBe(INDEXED_TOPICS.length);
  });
});

describe("decodeEscrowLog: legacy", () => {
  it("decodes each event with topic1 channel, topic2 payer, topic3 payee and the data in declaration order", () => {
    expect(
      decodeEscrowLog(eventLog(LEGACY.channelOpened, LEGACY_ESCROW, [getAddress(USDC_E), getAddress(PAYER), `0x${"5a".repeat(32)}`, 10_000_000n]), "legacy"),
    ).toEqual({ ...base, type: "channelOpened", token: USDC_E, deposit: 10_000_000n });
    expect(decodeEscrowLog(eventLog(LEGACY.topUp, LEGACY_ESCROW, [5n, 15n]), "legacy")).toEqual({
      ...base,
      type: "topUp",
      additionalDeposit: 5n,
      newDeposit: 15n,
    });
    expect(decodeEscrowLog(eventLog(LEGACY.settled, LEGACY_ESCROW, [30n, 20n, 30n]), "legacy")).toEqual({
      ...base,
      type: "settled",
      cumulativeAmount: 30n,
      deltaPaid: 20n,
      newSettled: 30n,
    });
    expect(decodeEscrowLog(eventLog(LEGACY.closeRequested, LEGACY_ESCROW, [1_790_000_900n]), "legacy")).toEqual({
      ...base,
      type: "closeRequested",
      closeGraceEnd: 1_790_000_900n,
    });
    expect(decodeEscrowLog(eventLog(LEGACY.closeRequestCancelled, LEGACY_ESCROW, []), "legacy")).toEqual({ ...base, type: "closeRequestCancelled" });
    expect(decodeEscrowLog(eventLog(LEGACY.channelClosed, LEGACY_ESCROW, [45n, 55n]), "legacy")).toEqual({
      ...base,
      type: "channelClosed",
      settledToPayee: 45n,
      refundedToPayer: 55n,
    });
    expect(decodeEscrowLog(eventLog(LEGACY.channelExpired, LEGACY_ESCROW, []), "legacy")).toEqual({ ...base, type: "channelExpired" });
  });
  it("accepts full uint256 amounts, and refuses the precompile's events", () => {
    const big = 2n ** 200n;
    expect(decodeEscrowLog(eventLog(LEGACY.topUp, LEGACY_ESCROW, [big, big]), "legacy")).toMatchObject({ additionalDeposit: big });
    expect(decodeEscrowLog(eventLog(PRECOMPILE.settled, LEGACY_ESCROW, [30n, 20n, 30n]), "legacy")).toBeNull();
  });
});

describe("decodeEscrowLog: precompile", () => {
  it("decodes each event (uint96 amounts in 32-byte words)", () => {
    const opened = eventLog(PRECOMPILE.channelOpened, PRECOMPILE_ESCROW, [
      getAddress(PAYEE),
      getAddress(USDC_E),
      getAddress(PAYER),
      `0x${"5a".repeat(32)}`,
      `0x${"6b".repeat(32)}`,
      2n ** 96n - 1n,
    ]);
    expect(opened.data.length).toBe(2 + 6 * 64);
    expect(decodeEscrowLog(opened, "precompile")).toEqual({ ...pbase, type: "channelOpened", token: USDC_E, deposit: 2n ** 96n - 1n });
    expect(decodeEscrowLog(eventLog(PRECOMPILE.topUp, PRECOMPILE_ESCROW, [5n, 15n]), "precompile")).toEqual({
      ...pbase,
      type: "topUp",
      additionalDeposit: 5n,
      newDeposit: 15n,
    });
    expect(decodeEscrowLog(eventLog(PRECOMPILE.settled, PRECOMPILE_ESCROW, [30n, 20n, 30n]), "precompile")).toEqual({
      ...pbase,
      type: "settled",
      cumulativeAmount: 30n,
      deltaPaid: 20n,
      newSettled: 30n,
    });
    expect(decodeEscrowLog(eventLog(PRECOMPILE.closeRequested, PRECOMPILE_ESCROW, [9n]), "precompile")).toEqual({
      ...pbase,
      type: "closeRequested",
      closeGraceEnd: 9n,
    });
    expect(decodeEscrowLog(eventLog(PRECOMPILE.closeRequestCancelled, PRECOMPILE_ESCROW, []), "precompile")).toEqual({
      ...pbase,
      type: "closeRequestCancelled",
    });
    expect(decodeEscrowLog(eventLog(PRECOMPILE.channelClosed, PRECOMPILE_ESCROW, [45n, 55n]), "precompile")).toEqual({
      ...pbase,
      type: "channelClosed",
      settledToPayee: 45n,
      refundedToPayer: 55n,
    });
  });
  it("refuses an amount word above uint96, the legacy events of other shape, and ChannelExpired (the precompile has none)", () => {
    const log = eventLog(PRECOMPILE.settled, PRECOMPILE_ESCROW, [30n, 20n, 30n]);
    const tooBig = { ...log, data: `0x${(2n ** 96n).toString(16).padStart(64, "0")}${log.data.slice(66)}` };
    expect(decodeEscrowLog(tooBig, "precompile")).toBeNull();
    expect(decodeEscrowLog(tooBig, "legacy")).toBeNull(); // another topic0 for the legacy ABI
    expect(decodeEscrowLog(eventLog(LEGACY.settled, PRECOMPILE_ESCROW, [30n, 20n, 30n]), "precompile")).toBeNull();
    expect(decodeEscrowLog(eventLog(LEGACY.channelExpired, PRECOMPILE_ESCROW, []), "precompile")).toBeNull();
  });
});

describe("decodeEscrowLog: malformed logs decode to null", () => {
  const good = eventLog(LEGACY.channelClosed, LEGACY_ESCROW, [45n, 55n]);
  it("wrong topic count, non-address payer/payee, short or long data, an address word with high bytes", () => {
    expect(decodeEscrowLog({ ...good, topics: good.topics.slice(0, 3) }, "legacy")).toBeNull();
    expect(decodeEscrowLog({ ...good, topics: [...good.topics.slice(0, 2), `0x${"ff".repeat(32)}`, good.topics[3]!] }, "legacy")).toBeNull();
    expect(decodeEscrowLog({ ...good, topics: [...good.topics.slice(0, 3), "0x1234"] }, "legacy")).toBeNull();
    expect(decodeEscrowLog({ ...good, data: good.data.slice(0, -2) }, "legacy")).toBeNull();
    expect(decodeEscrowLog({ ...good, data: `${good.data}00` }, "legacy")).toBeNull();
    const opened = eventLog(LEGACY.channelOpened, LEGACY_ESCROW, [getAddress(USDC_E), getAddress(PAYER), `0x${"5a".repeat(32)}`, 1n]);
    expect(decodeEscrowLog({ ...opened, data: `0x${"ff".repeat(32)}${opened.data.slice(66)}` }, "legacy")).toBeNull();
    expect(decodeEscrowLog({ ...good, topics: [`0x${"00".repeat(32)}`, ...good.topics.slice(1)] }, "legacy")).toBeNull();
  });
  it("reads upper-case hex like lower case", () => {
    const upper = {
      ...good,
      address: LEGACY_ESCROW.toUpperCase().replace("0X", "0x"),
      topics: good.topics.map((t) => `0x${t.slice(2).toUpperCase()}`),
      data: `0x${good.data.slice(2).toUpperCase()}`,
    };
    expect(decodeEscrowLog(upper, "legacy")).toEqual(decodeEscrowLog(good, "legacy"));
  });
});
