import {
  matchLogsV02,
  matchLogsV03,
  type EventDraft,
  type MatchContext,
  type RawLog,
  type V02Trace,
  type V03Trace,
  type WatchedEntity,
} from "@agent-ledger/core";
import { concat, encodeAbiParameters, encodeEventTopics, getAddress, keccak256, parseAbiItem, slice, toBytes, type AbiEvent, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { createDiffAccumulator, diffReport, summarizeDiff } from "./summarizeDiff.ts";

const row = (over: Partial<EventDraft>): EventDraft => ({
  ts: new Date("2026-11-25T00:00:00Z"),
  agentId: "agent",
  agentLabel: "Agent",
  agentCategory: "agent",
  counterpartyAddress: "0x1",
  counterpartyLabel: "",
  counterpartyCategory: null,
  kind: "payment_sent",
  amountWei: 10n,
  tokenAddress: "0xt",
  txHash: "0xa",
  logIndex: 0,
  sourceBlock: 1n,
  methodologyVersion: "v0.1",
  routedToAddress: "",
  routedToLabel: "",
  routedFingerprint: null,
  explorerUrl: "",
  attribution: null,
  clientFingerprint: null,
  channelId: null,
  ...over,
});

describe("summarizeDiff", () => {
  it("counts rows, payments (once per tx/log) and volume per version and entity, and says why payments stop counting", () => {
    const acc = createDiffAccumulator();
    const before = [
      row({ agentId: "a", kind: "payment_sent", logIndex: 0, amountWei: 10n }),
      row({ agentId: "b", kind: "payment_received", logIndex: 0, amountWei: 10n }), // the same payment, other side
      row({ agentId: "a", kind: "payment_received", logIndex: 1, amountWei: 10n ** 30n, tokenAddress: "0xjunk" }),
      row({ agentId: "a", kind: "payment_received", logIndex: 2, amountWei: 500n }),
      row({ agentId: "g", kind: "payment_sent", logIndex: 3, amountWei: 95n, routedToAddress: "0xp" }),
    ];
    const after = [
      row({ agentId: "a", kind: "payment_sent", logIndex: 0, amountWei: 10n, methodologyVersion: "v0.2" }),
      row({ agentId: "b", kind: "payment_received", logIndex: 0, amountWei: 10n, methodologyVersion: "v0.2" }),
      row({ agentId: "a", kind: "funding_received", logIndex: 2, amountWei: 500n, methodologyVersion: "v0.2" }),
      row({ agentId: "g", kind: "settlement_sent", logIndex: 3, amountWei: 95n, routedToAddress: "0xq", methodologyVersion: "v0.2" }),
    ];
    const trace: V02Trace[] = [
      { txHash: "0xa", logIndex: 1, note: "not_allowlisted_token" },
      { txHash: "0xa", logIndex: 2, note: "funding" },
    ];
    summarizeDiff(acc, before, after, trace);
    const r = diffReport(acc, "v0.1", "v0.2");
    expect(r.global.before).toMatchObject({ rows: 5, payments: 4, volume_wei: (10n + 10n ** 30n + 500n + 95n).toString() });
    expect(r.global.after).toMatchObject({
      rows: 4,
      payments: 1,
      volume_wei: "10",
      rows_by_kind: { funding_received: 1, payment_received: 1, payment_sent: 1, settlement_sent: 1 },
    });
    expect(r.why.no_longer_activity).toEqual({
      funding: { payments: 1, volume_wei: "500" },
      not_allowlisted_token: { payments: 1, volume_wei: (10n ** 30n).toString() },
      now_settlement_sent: { payments: 1, volume_wei: "95" },
    });
    expect(r.why.new_activity).toEqual({});
    expect(r.why.rows_rerouted).toBe(1);
    expect(r.entities.a).toEqual({
      before: { rows: 3, sent_count: 1, sent_wei: "10", received_count: 2, received_wei: (10n ** 30n + 500n).toString() },
      after: { rows: 2, sent_count: 1, sent_wei: "10", received_count: 0, received_wei: "0" },
    });
  });
});

// rematch --diff v0.2 v0.3 on logs of mainnet shape (the same registry for both versions, as rematch loads it).
describe("summarizeDiff: v0.2 → v0.3 explains every difference by a v0.3 trace note", () => {
  const USDC_E = "0x20c000000000000000000000b9537d11c60e8b50";
  const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe";
  const ESCROW = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
  const AGENT = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
  const PAYEE = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb4";
  const OUTSIDER = "0x5555555555555555555555555555555555555555";
  const CHANNEL = `0x${"c1".repeat(32)}` as Hex;
  const fp = (s: string) => slice(keccak256(toBytes(s)), 0, 10);
  const memo = (server: string) =>
    concat([slice(keccak256(toBytes("mpp")), 0, 4), "0x01", fp(server), fp("agent-alpha"), slice(keccak256(toBytes("c")), 0, 7)]);
  const e = (id: string, category: string): WatchedEntity => ({ id, label: id, category, trackFees: false });
  const FAL = e("fal-mpp", "service");
  const SHOP = e("shop-mpp", "service");
  const ESCROW_E = e("mpp-session-escrow", "escrow");
  const context: MatchContext = {
    wallets: new Map([
      [AGENT, e("agent-1", "agent")],
      [GATEWAY, e("tempo-gateway", "gateway")],
      [PAYEE, e("session-svc", "service")],
      ["0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2", SHOP],
      [ESCROW, ESCROW_E],
    ]),
    addressLabels: new Map(),
    fingerprintLabels: new Map(),
    settlementContracts: new Set(),
    explorerBaseUrl: "https://explore.tempo.xyz",
    tokens: new Map([[USDC_E, { symbol: "USDC.e", decimals: 6, currency: "USD" }]]),
    serverIds: new Map([
      [fp("fal.mpp.tempo.xyz"), { entity: FAL, source: "host" as const }],
      [fp("shop.example"), { entity: SHOP, source: "realm" as const }],
    ]),
    escrows: new Map([[ESCROW, { abi: "legacy" as const, entity: ESCROW_E }]]),
  };
  let logIndex = 0;
  const at = (tx: string) => ({
    blockNumber: 1n,
    blockHash: `0x${"0".repeat(64)}`,
    blockTimestamp: 1_790_000_000,
    txHash: tx,
    txIndex: 0,
    logIndex: logIndex++,
  });
  const transfer = (tx: string, from: string, to: string, amount: bigint, withMemo?: Hex): RawLog[] => {
    const one = (eventName: "Transfer" | "TransferWithMemo", args: object): RawLog => ({
      ...at(tx),
      address: USDC_E,
      data: encodeAbiParameters([{ type: "uint256" }], [amount]),
      topics: encodeEventTopics({ abi: Abis.tip20, eventName, args: { from: getAddress(from), to: getAddress(to), ...args } } as never) as string[],
    });
    return withMemo ? [one("Transfer", {}), one("TransferWithMemo", { memo: withMemo })] : [one("Transfer", {})];
  };
  const event = (tx: string, decl: string, values: unknown[]): RawLog => {
    const ev = parseAbiItem(decl) as AbiEvent;
    return {
      ...at(tx),
      address: ESCROW,
      data: encodeAbiParameters(
        ev.inputs.filter((i) => !i.indexed),
        values as never,
      ),
      topics: encodeEventTopics({ abi: [ev], args: { channelId: CHANNEL, payer: getAddress(AGENT), payee: getAddress(PAYEE) } } as never) as string[],
    };
  };
  const tx = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
  const logs = [
    ...transfer(tx(1), AGENT, GATEWAY, 1_000n, memo("fal.mpp.tempo.xyz")), // a charge of fal through the gateway
    ...transfer(tx(2), AGENT, ESCROW, 500n), // a session: open…
    event(
      tx(2),
      "event ChannelOpened(bytes32 indexed channelId, address indexed payer, address indexed payee, address token, address authorizedSigner, bytes32 salt, uint256 deposit)",
      [getAddress(USDC_E), getAddress(AGENT), `0x${"5a".repeat(32)}`, 500n],
    ),
    ...transfer(tx(3), ESCROW, PAYEE, 200n), // …settle…
    event(
      tx(3),
      "event Settled(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 cumulativeAmount, uint256 deltaPaid, uint256 newSettled)",
      [200n, 200n, 200n],
    ),
    ...transfer(tx(4), ESCROW, AGENT, 300n), // …close with no new voucher: refund only
    event(
      tx(4),
      "event ChannelClosed(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 settledToPayee, uint256 refundedToPayer)",
      [200n, 300n],
    ),
    ...transfer(tx(5), AGENT, OUTSIDER, 70n, memo("shop.example")), // a spoof: the shop's memo, a foreign recipient
  ];

  it("reports rows removed, added and changed, and payments in and out of activity, each by its note", () => {
    const acc = createDiffAccumulator();
    const trace: V03Trace[] = [];
    summarizeDiff(acc, matchLogsV02(logs, context), matchLogsV03(logs, context, trace), trace);
    const r = diffReport(acc, "v0.2", "v0.3");
    expect(r.why.rows).toEqual({
      removed: {
        charge_of_service: { rows: 1, volume_wei: "1000" }, // the gateway's payment_received of fal's charge
        session_payout: { rows: 1, volume_wei: "200" }, // the escrow's payment_sent: the payout is the payer's
      },
      added: {
        now_attributed_to_service: { rows: 1, volume_wei: "1000" }, // fal's payment_received
        now_session_payout: { rows: 1, volume_wei: "200" }, // the payer's payment_sent of the payout
      },
      changed: {
        attributed_to_service: { rows: 1, volume_wei: "1000" }, // the payer's row: labelled fal.ai
        session_funding: { rows: 4, volume_wei: "1600" }, // deposit and refund, both sides: payments → funding
        session_payout: { rows: 1, volume_wei: "200" }, // the payee's row: from the payer, routed to the payee
      },
    });
    expect(r.why.no_longer_activity).toEqual({ session_funding: { payments: 2, volume_wei: "800" } });
    expect(r.why.new_activity).toEqual({});
    // every reason is a note: nothing is left unexplained
    const reasons = [
      ...Object.keys(r.why.rows.removed),
      ...Object.keys(r.why.rows.added),
      ...Object.keys(r.why.rows.changed),
      ...Object.keys(r.why.no_longer_activity),
    ];
    expect(reasons.filter((x) => /^(no_row|no_row_before|changed_|was_)/.test(x))).toEqual([]);
    expect(r.entities["fal-mpp"]).toEqual({
      before: { rows: 0, sent_count: 0, sent_wei: "0", received_count: 0, received_wei: "0" },
      after: { rows: 1, sent_count: 0, sent_wei: "0", received_count: 1, received_wei: "1000" },
    });
    expect(r.entities["tempo-gateway"]!.after.received_count).toBe(0);
  });

  it("a payment only v0.3 sees (an unregistered payer's charge of a service known by its server id) is new activity by its note", () => {
    const only = transfer(tx(6), OUTSIDER, `0x${"7".repeat(40)}`, 42n, memo("fal.mpp.tempo.xyz"));
    const acc = createDiffAccumulator();
    const trace: V03Trace[] = [];
    summarizeDiff(acc, matchLogsV02(only, context), matchLogsV03(only, context, trace), trace);
    const r = diffReport(acc, "v0.2", "v0.3");
    expect(r.why.new_activity).toEqual({ now_attributed_to_service: { payments: 1, volume_wei: "42" } });
    expect(r.why.rows.added).toEqual({ now_attributed_to_service: { rows: 1, volume_wei: "42" } });
  });
});
