import { encodeAbiParameters, encodeEventTopics, getAddress, parseAbiItem, stringToHex, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { FEE_MANAGER_ADDRESS } from "./constants.ts";
import { matchLogs } from "./matchLogs.ts";
import type { MatchContext, RawLog, WatchedEntity } from "./types.ts";

// Methodology v0.1 rules that matchLogs.test.ts leaves open: which transactions are read, how a
// TransferWithMemo is paired with its Transfer, and routing to a provider nobody labelled.
const settlementEvent = parseAbiItem(
  "event Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)",
);
const PATH_USD = "0x20c0000000000000000000000000000000000000";
const ALPHA_USD = "0x20c0000000000000000000000000000000000001";
const AGENT = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
const SERVICE = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2";
const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe";
const ESCROW = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
const UNLABELLED = "0x4444444444444444444444444444444444444444";
const STRANGER = "0x9999999999999999999999999999999999999999";
const OTHER = "0x8888888888888888888888888888888888888888";
const TX = ("0x" + "ab".repeat(32)) as Hex;

let nextIndex = 0;
const at = (tx: Hex = TX) => ({
  blockNumber: 100n,
  blockHash: "0x" + "cd".repeat(32),
  blockTimestamp: 1_790_000_000,
  txHash: tx,
  txIndex: 0,
  logIndex: nextIndex++,
});
const amountData = (amount: bigint) => encodeAbiParameters([{ type: "uint256" }], [amount]);
function transfer(from: string, to: string, amount: bigint, token = PATH_USD, tx?: Hex): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "Transfer", args: { from: getAddress(from), to: getAddress(to) } });
  return { ...at(tx), address: token, topics: topics as string[], data: amountData(amount) };
}
function withMemo(from: string, to: string, amount: bigint, memo: Hex, token = PATH_USD, tx?: Hex): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "TransferWithMemo", args: { from: getAddress(from), to: getAddress(to), memo } });
  return { ...at(tx), address: token, topics: topics as string[], data: amountData(amount) };
}
function settlement(provider: string, gateway: string, tx?: Hex): RawLog {
  const topics = encodeEventTopics({
    abi: [settlementEvent],
    args: { sessionRef: stringToHex("s", { size: 32 }), serviceProvider: getAddress(provider), gateway: getAddress(gateway) },
  });
  return { ...at(tx), address: ESCROW, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [10n, 9n]) };
}
const entity = (id: string, label: string, category: string, trackFees = false): WatchedEntity => ({ id, label, category, trackFees });
function context(overrides: Partial<MatchContext> = {}): MatchContext {
  return {
    wallets: new Map([
      [AGENT, entity("demo-agent", "Demo agent", "agent")],
      [SERVICE, entity("weather-api-mpp", "Weather API", "data")],
      [GATEWAY, entity("tempo-gateway-mpp", "Tempo MPP Gateway", "gateway")],
    ]),
    addressLabels: new Map(),
    fingerprintLabels: new Map(),
    settlementContracts: new Set([ESCROW]),
    explorerBaseUrl: "https://explore.example//",
    ...overrides,
  };
}
const memo = stringToHex("invoice-7", { size: 32 });
const brief = (rows: ReturnType<typeof matchLogs>) => rows.map((r) => [r.agentId, r.kind, r.logIndex, r.amountWei]);

describe("matchLogs v0.1: which payments are read", () => {
  it("reads a transaction when any one of its payments has a watched party, and only those payments", () => {
    const logs = [transfer(STRANGER, OTHER, 1n), transfer(AGENT, STRANGER, 2n), transfer(OTHER, STRANGER, 3n)];
    expect(brief(matchLogs(logs, context()))).toEqual([["demo-agent", "payment_sent", logs[1]!.logIndex, 2n]]);
  });
  it("records the sender side alone when only the sender is watched, the recipient side alone when only the recipient is", () => {
    const out = transfer(AGENT, STRANGER, 5n);
    expect(brief(matchLogs([out], context()))).toEqual([["demo-agent", "payment_sent", out.logIndex, 5n]]);
    const inbound = transfer(STRANGER, SERVICE, 6n, PATH_USD, ("0x" + "01".repeat(32)) as Hex);
    expect(brief(matchLogs([inbound], context()))).toEqual([["weather-api-mpp", "payment_received", inbound.logIndex, 6n]]);
  });
  it("dates rows by the block and links them under the explorer base without trailing slashes", () => {
    const [row] = matchLogs([transfer(AGENT, STRANGER, 1n)], context());
    expect(row!.ts).toEqual(new Date(1_790_000_000_000));
    expect(row!.explorerUrl).toBe(`https://explore.example/tx/${TX}`);
    expect(row!.sourceBlock).toBe(100n);
  });
  it("records a fee paid by a fee-tracking entity, never a fee received", () => {
    const ctx = context({
      wallets: new Map([
        [AGENT, entity("demo-agent", "Demo agent", "agent", true)],
        [FEE_MANAGER_ADDRESS, entity("fee-sink", "Fees", "infra")],
      ]),
    });
    const feeLog = transfer(AGENT, FEE_MANAGER_ADDRESS, 11n);
    expect(matchLogs([feeLog], ctx).map((r) => [r.agentId, r.kind, r.routedToAddress])).toEqual([["demo-agent", "fee_paid", ""]]);
  });
});

describe("matchLogs v0.1: pairing a TransferWithMemo with its Transfer", () => {
  it("pairs only a preceding Transfer with the same token, sender, recipient and amount", () => {
    // the agent's rows: an unpaired Transfer stays a payment of its own beside the TransferWithMemo
    const cases: [string, RawLog, bigint[]][] = [
      ["another amount", transfer(AGENT, STRANGER, 8n), [8n, 7n]],
      ["another token", transfer(AGENT, STRANGER, 7n, ALPHA_USD), [7n, 7n]],
      ["another recipient", transfer(AGENT, OTHER, 7n), [7n, 7n]],
      ["another sender", transfer(STRANGER, AGENT, 7n), [7n, 7n]],
    ];
    for (const [name, t, amounts] of cases) {
      const m = withMemo(AGENT, STRANGER, 7n, memo);
      const rows = matchLogs([t, m], context());
      expect(
        rows.map((r) => [r.logIndex, r.amountWei]),
        name,
      ).toEqual([
        [t.logIndex, amounts[0]],
        [m.logIndex, amounts[1]],
      ]);
    }
    const t = transfer(AGENT, STRANGER, 7n);
    const m = withMemo(AGENT, STRANGER, 7n, memo);
    expect(matchLogs([t, m], context()).map((r) => r.logIndex)).toEqual([t.logIndex]);
  });
  it("does not pair with a Transfer logged after the TransferWithMemo", () => {
    const m = withMemo(AGENT, STRANGER, 7n, memo);
    const t = transfer(AGENT, STRANGER, 7n);
    expect(matchLogs([m, t], context()).map((r) => r.logIndex)).toEqual([m.logIndex, t.logIndex]);
  });
  it("pairs with the nearest preceding Transfer and carries the memo's routing to it", () => {
    const fp = "0102030405060708090a";
    const gatewayMemo = `0xef1ed71201${fp}${"00".repeat(17)}` as Hex;
    const first = transfer(AGENT, GATEWAY, 7n);
    const second = transfer(AGENT, GATEWAY, 7n);
    const m = withMemo(AGENT, GATEWAY, 7n, gatewayMemo);
    const rows = matchLogs([first, second, m], context()).filter((r) => r.agentId === "demo-agent");
    expect(rows.map((r) => [r.logIndex, r.routedFingerprint])).toEqual([
      [first.logIndex, null],
      [second.logIndex, `0x${fp}`],
    ]);
  });
});

describe("matchLogs v0.1: Pattern A routing", () => {
  it("routes to a settled provider nobody labelled: the address, an empty label", () => {
    const logs = [transfer(GATEWAY, UNLABELLED, 9n), settlement(UNLABELLED, GATEWAY)];
    expect(matchLogs(logs, context())).toEqual([
      expect.objectContaining({
        agentId: "tempo-gateway-mpp",
        kind: "payment_sent",
        counterpartyAddress: UNLABELLED,
        counterpartyLabel: "",
        counterpartyCategory: null,
        routedToAddress: UNLABELLED,
        routedToLabel: "",
        routedFingerprint: null,
      }),
    ]);
  });
  it("labels a settled provider that is a watched entity with the entity's label", () => {
    const logs = [transfer(GATEWAY, SERVICE, 9n), settlement(SERVICE, GATEWAY)];
    const rows = matchLogs(logs, context());
    expect(rows.map((r) => [r.agentId, r.routedToAddress, r.routedToLabel, r.counterpartyCategory])).toEqual([
      ["tempo-gateway-mpp", SERVICE, "Weather API", "data"],
      ["weather-api-mpp", SERVICE, "Weather API", "gateway"],
    ]);
  });
  it("falls back to the transaction's first trusted Settlement when none names the recipient", () => {
    const logs = [settlement(OTHER, GATEWAY), settlement(UNLABELLED, GATEWAY), transfer(GATEWAY, STRANGER, 9n)];
    expect(matchLogs(logs, context({ addressLabels: new Map([[OTHER, { label: "Other provider", category: "provider" }]]) }))[0]).toMatchObject({
      routedToAddress: OTHER,
      routedToLabel: "Other provider",
    });
  });
});

describe("matchLogs v0.1: rules the other tests leave open", () => {
  it("groups the logs of one transaction whatever the case of its hash, and writes the hash lowercase", () => {
    const upper = ("0x" + "AB".repeat(32)) as Hex;
    const logs = [transfer(GATEWAY, UNLABELLED, 9n, PATH_USD, upper), settlement(UNLABELLED, GATEWAY, TX)];
    const [row] = matchLogs(logs, context());
    expect(row).toMatchObject({ txHash: TX, routedToAddress: UNLABELLED, explorerUrl: `https://explore.example/tx/${TX}` });
  });

  it("orders rows by log index even when a memo payment comes before a plain one in the logs", () => {
    const tx = ("0x" + "0c".repeat(32)) as Hex;
    const plain = transfer(AGENT, OTHER, 1n, PATH_USD, tx);
    const t = transfer(AGENT, STRANGER, 2n, PATH_USD, tx);
    const m = withMemo(AGENT, STRANGER, 2n, memo, PATH_USD, tx);
    const later = transfer(AGENT, OTHER, 3n, PATH_USD, tx);
    expect(brief(matchLogs([plain, t, m, later], context()))).toEqual([
      ["demo-agent", "payment_sent", plain.logIndex, 1n],
      ["demo-agent", "payment_sent", t.logIndex, 2n],
      ["demo-agent", "payment_sent", later.logIndex, 3n],
    ]);
  });

  it("never routes a fee, even beside a trusted Settlement; a fingerprint nobody labelled routes with an empty label", () => {
    const ctx = context({ wallets: new Map([[GATEWAY, entity("tempo-gateway-mpp", "Tempo MPP Gateway", "gateway", true)]]) });
    const tx = ("0x" + "0d".repeat(32)) as Hex;
    const rows = matchLogs(
      [transfer(GATEWAY, FEE_MANAGER_ADDRESS, 4n, PATH_USD, tx), transfer(GATEWAY, UNLABELLED, 9n, PATH_USD, tx), settlement(UNLABELLED, GATEWAY, tx)],
      ctx,
    );
    expect(rows.map((r) => [r.kind, r.routedToAddress])).toEqual([
      ["fee_paid", ""],
      ["payment_sent", UNLABELLED],
    ]);
    const fp = "0a0b0c0d0e0f10111213";
    const tx2 = ("0x" + "0e".repeat(32)) as Hex;
    const gm = `0xef1ed71201${fp}${"00".repeat(17)}` as Hex;
    const [unlabelled] = matchLogs([transfer(AGENT, STRANGER, 5n, PATH_USD, tx2), withMemo(AGENT, STRANGER, 5n, gm, PATH_USD, tx2)], context());
    expect(unlabelled).toMatchObject({ routedToAddress: "", routedToLabel: "", routedFingerprint: `0x${fp}` });
  });

  it("a Settlement emitted by an untrusted contract is not a payment and routes nothing", () => {
    const tx = ("0x" + "0f".repeat(32)) as Hex;
    const fake = { ...settlement(OTHER, GATEWAY, tx), address: STRANGER };
    expect(matchLogs([transfer(GATEWAY, UNLABELLED, 9n, PATH_USD, tx), fake], context())).toEqual([
      expect.objectContaining({ kind: "payment_sent", routedToAddress: "", routedToLabel: "" }),
    ]);
  });
});

describe("matchLogs v0.1: a TransferWithMemo pairs only with a Transfer", () => {
  it("a second identical memo after one Transfer stays a payment of its own; it never pairs with the first memo", () => {
    const t = transfer(AGENT, STRANGER, 4n);
    const m1 = withMemo(AGENT, STRANGER, 4n, memo);
    const m2 = withMemo(AGENT, STRANGER, 4n, memo);
    expect(brief(matchLogs([t, m1, m2], context()))).toEqual([
      ["demo-agent", "payment_sent", t.logIndex, 4n],
      ["demo-agent", "payment_sent", m2.logIndex, 4n],
    ]);
  });
  it("a Transfer from another sender to the same recipient is not the memo's partner", () => {
    const t = transfer(OTHER, STRANGER, 7n);
    const m = withMemo(AGENT, STRANGER, 7n, memo);
    expect(brief(matchLogs([t, m], context()))).toEqual([["demo-agent", "payment_sent", m.logIndex, 7n]]);
  });
});
