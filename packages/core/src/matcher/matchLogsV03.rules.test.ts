import {
  concat,
  encodeAbiParameters,
  encodeEventTopics,
  getAddress,
  keccak256,
  parseAbiItem,
  slice,
  stringToHex,
  toBytes,
  type AbiEvent,
  type Hex,
} from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { computeRollups } from "../rollups/computeRollups.ts";
import { ACTIVITY_KINDS, FEE_MANAGER_ADDRESS } from "./constants.ts";
import { matchLogs } from "./matchLogs.ts";
import { matchLogsV02 } from "./matchLogsV02.ts";
import { matchLogsV03, type V03Trace } from "./matchLogsV03.ts";
import type { EventDraft, MatchContext, RawLog, WatchedEntity } from "./types.ts";

// Methodology v0.3 row rules (docs/methodology.md, "Methodology v0.3"), on synthetic logs of mainnet shape: USDC.e, the
// Tempo MPP gateway's recipient, fal.mpp.tempo.xyz's serverId, the legacy escrow and the TIP-1034 precompile with
// their real topic0s and data layouts.
const USDC_E = "0x20c000000000000000000000b9537d11c60e8b50";
const JUNK = "0x20c00000000000000000000000000000000000ff";
const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe"; // Tempo MPP gateway recipient
const LEGACY_ESCROW = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
const PRECOMPILE = "0x4d50500000000000000000000000000000000000";
const AGENT = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
const STRANGER = "0x9999999999999999999999999999999999999999"; // an unregistered payer
const SHOP_WALLET = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2"; // a service with a registered wallet
const PARTNER = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb3"; // a watched split recipient
const PAYEE = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb4"; // a session service's wallet
const LOOSE_PAYEE = "0x4444444444444444444444444444444444444444"; // a payee nobody registered
const OUTSIDER = "0x5555555555555555555555555555555555555555";
const EXCHANGE = "0x6666666666666666666666666666666666666666";
const FAL_SERVER_ID = "0x8bdbf8cc304c4816750e"; // keccak256("fal.mpp.tempo.xyz")[0..9]

const fingerprint = (s: string) => slice(keccak256(toBytes(s)), 0, 10);
/** An MPP attribution memo as mppx `src/tempo/Attribution.ts` encodes it. */
const mppMemo = (serverId: string, clientId: string | null, challengeId = "challenge-1"): Hex =>
  concat([
    slice(keccak256(toBytes("mpp")), 0, 4),
    "0x01",
    fingerprint(serverId),
    clientId ? fingerprint(clientId) : `0x${"00".repeat(10)}`,
    slice(keccak256(toBytes(challengeId)), 0, 7),
  ]);
const SHOP_SERVER_ID = fingerprint("shop.example");
const UNKNOWN_SERVER_ID = fingerprint("unknown.mpp.tempo.xyz");

const entity = (id: string, category: string, label = `${id} label`): WatchedEntity => ({ id, label, category, trackFees: true });
const AGENT_E = entity("agent-1", "agent");
const GATEWAY_E = entity("tempo-gateway", "gateway", "Tempo MPP gateway");
const FAL = entity("fal-mpp", "service", "fal.ai");
const SHOP = entity("shop-mpp", "service", "Shop");
const PARTNER_E = entity("partner", "service");
const PAYEE_E = entity("session-svc", "service", "Session service");
const LEGACY_E = entity("mpp-session-escrow", "escrow", "MPP session escrow (TempoStreamChannel)");
const PRECOMPILE_E = entity("mpp-channel-reserve", "escrow", "MPP channel reserve (TIP-1034)");

function context(overrides: Partial<MatchContext> = {}): MatchContext {
  return {
    wallets: new Map([
      [AGENT, AGENT_E],
      [GATEWAY, GATEWAY_E],
      [SHOP_WALLET, SHOP],
      [PARTNER, PARTNER_E],
      [PAYEE, PAYEE_E],
      [LEGACY_ESCROW, LEGACY_E],
      [PRECOMPILE, PRECOMPILE_E], // the registry loader makes each escrow an entity
    ]),
    addressLabels: new Map([[EXCHANGE, { label: "Some exchange", category: "exchange" }]]),
    fingerprintLabels: new Map([[UNKNOWN_SERVER_ID, { label: "Unknown (via gateway)", category: "provider" }]]),
    settlementContracts: new Set(),
    explorerBaseUrl: "https://explore.tempo.xyz",
    tokens: new Map([[USDC_E, { symbol: "USDC.e", decimals: 6, currency: "USD" }]]),
    serverIds: new Map([
      [FAL_SERVER_ID, { entity: FAL, source: "host" as const }],
      [SHOP_SERVER_ID, { entity: SHOP, source: "realm" as const }],
    ]),
    escrows: new Map([
      [LEGACY_ESCROW, { abi: "legacy" as const, entity: LEGACY_E }],
      [PRECOMPILE, { abi: "precompile" as const, entity: PRECOMPILE_E }],
    ]),
    ...overrides,
  };
}

let nextLogIndex = 0;
let nextTx = 0x3000;
const newTx = (): Hex => `0x${(nextTx++).toString(16).padStart(64, "0")}`;
const base = (tx: string) => ({
  blockNumber: 9_000_000n,
  blockHash: "0x" + "cd".repeat(32),
  blockTimestamp: 1_790_000_000,
  blockTimestampMs: 1_790_000_000_250,
  txHash: tx,
  txIndex: 0,
  logIndex: nextLogIndex++,
});
function transfer(tx: string, from: string, to: string, amount: bigint, token = USDC_E): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "Transfer", args: { from: getAddress(from), to: getAddress(to) } });
  return { ...base(tx), address: token, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }], [amount]) };
}
function withMemo(tx: string, from: string, to: string, amount: bigint, memo: Hex, token = USDC_E): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "TransferWithMemo", args: { from: getAddress(from), to: getAddress(to), memo } });
  return { ...base(tx), address: token, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }], [amount]) };
}
/** A charge as mppx pays it: Transfer + TransferWithMemo of the same amount. */
const charge = (tx: string, from: string, to: string, amount: bigint, memo: Hex) => [transfer(tx, from, to, amount), withMemo(tx, from, to, amount, memo)];

const ESCROW_EVENTS = {
  legacy: {
    ChannelOpened:
      "event ChannelOpened(bytes32 indexed channelId, address indexed payer, address indexed payee, address token, address authorizedSigner, bytes32 salt, uint256 deposit)",
    TopUp: "event TopUp(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 additionalDeposit, uint256 newDeposit)",
    Settled:
      "event Settled(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 cumulativeAmount, uint256 deltaPaid, uint256 newSettled)",
    ChannelClosed:
      "event ChannelClosed(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 settledToPayee, uint256 refundedToPayer)",
  },
  precompile: {
    ChannelOpened:
      "event ChannelOpened(bytes32 indexed channelId, address indexed payer, address indexed payee, address operator, address token, address authorizedSigner, bytes32 salt, bytes32 expiringNonceHash, uint96 deposit)",
    TopUp: "event TopUp(bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 additionalDeposit, uint96 newDeposit)",
    Settled:
      "event Settled(bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 cumulativeAmount, uint96 deltaPaid, uint96 newSettled)",
    ChannelClosed:
      "event ChannelClosed(bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 settledToPayee, uint96 refundedToPayer)",
  },
} as const;
type Abi = keyof typeof ESCROW_EVENTS;
const escrowOf = (abi: Abi) => (abi === "legacy" ? LEGACY_ESCROW : PRECOMPILE);
function escrowEvent(
  tx: string,
  abi: Abi,
  name: keyof (typeof ESCROW_EVENTS)["legacy"],
  channel: Hex,
  payer: string,
  payee: string,
  values: readonly unknown[],
  emitter = escrowOf(abi),
): RawLog {
  const event = parseAbiItem(ESCROW_EVENTS[abi][name]) as AbiEvent;
  const topics = encodeEventTopics({ abi: [event], args: { channelId: channel, payer: getAddress(payer), payee: getAddress(payee) } } as never);
  return {
    ...base(tx),
    address: emitter,
    topics: topics as string[],
    data: encodeAbiParameters(
      event.inputs.filter((i) => !i.indexed),
      values as never,
    ),
  };
}
const SALT = `0x${"5a".repeat(32)}` as Hex;
/** The logs of one session step, in the order the escrow emits them (transfers, then the event). */
const session = {
  open: (tx: string, abi: Abi, channel: Hex, payer: string, payee: string, deposit: bigint) => [
    transfer(tx, payer, escrowOf(abi), deposit),
    escrowEvent(
      tx,
      abi,
      "ChannelOpened",
      channel,
      payer,
      payee,
      abi === "legacy"
        ? [getAddress(USDC_E), getAddress(payer), SALT, deposit]
        : [getAddress("0x0000000000000000000000000000000000000000"), getAddress(USDC_E), getAddress(payer), SALT, `0x${"6b".repeat(32)}`, deposit],
    ),
  ],
  topUp: (tx: string, abi: Abi, channel: Hex, payer: string, payee: string, add: bigint, newDeposit: bigint) => [
    transfer(tx, payer, escrowOf(abi), add),
    escrowEvent(tx, abi, "TopUp", channel, payer, payee, [add, newDeposit]),
  ],
  settle: (tx: string, abi: Abi, channel: Hex, payer: string, payee: string, cumulative: bigint, delta: bigint) => [
    transfer(tx, escrowOf(abi), payee, delta),
    escrowEvent(tx, abi, "Settled", channel, payer, payee, [cumulative, delta, cumulative]),
  ],
  /** close(cumulative): pays `delta` (if any) to the payee, refunds the rest, and logs the channel's settled TOTAL. */
  close: (tx: string, abi: Abi, channel: Hex, payer: string, payee: string, delta: bigint, settledTotal: bigint, refund: bigint) => [
    ...(delta > 0n ? [transfer(tx, escrowOf(abi), payee, delta)] : []),
    ...(refund > 0n ? [transfer(tx, escrowOf(abi), payer, refund)] : []),
    escrowEvent(tx, abi, "ChannelClosed", channel, payer, payee, [settledTotal, refund]),
  ],
};

function run(logs: RawLog[], ctx = context()) {
  const trace: V03Trace[] = [];
  const rows = matchLogsV03(logs, ctx, trace);
  return { rows, trace, notes: trace.map((t) => t.note), kinds: rows.map((r) => `${r.agentId}:${r.kind}`) };
}
const activity = (rows: EventDraft[]) => rows.filter((r) => ACTIVITY_KINDS.has(r.kind));
/** Each payment's amount once (a payment between two watched entities is two rows). */
const paymentsOnce = (rows: EventDraft[]) => [...new Map(activity(rows).map((r) => [`${r.txHash}:${r.logIndex}`, r.amountWei])).values()];

describe("v0.3 rule 2: charges belong to the service their serverId names", () => {
  it("a charge through the gateway is fal's by name: exactly the payer's and fal's rows, none for the gateway", () => {
    const tx = newTx();
    const [t, m] = charge(tx, AGENT, GATEWAY, 1_500n, mppMemo("fal.mpp.tempo.xyz", "agent-alpha"));
    const fee = transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 30n);
    const { rows, trace } = run([t!, m!, fee]);
    const common = {
      ts: new Date(1_790_000_000_250),
      amountWei: 1_500n,
      tokenAddress: USDC_E,
      txHash: tx,
      logIndex: t!.logIndex,
      sourceBlock: 9_000_000n,
      methodologyVersion: "v0.3",
      explorerUrl: `https://explore.tempo.xyz/tx/${tx}`,
      routedToAddress: "",
      routedToLabel: "fal.ai",
      routedFingerprint: FAL_SERVER_ID,
      attribution: "server_id_host",
      clientFingerprint: fingerprint("agent-alpha"),
      channelId: null,
    };
    expect(rows).toEqual([
      {
        ...common,
        agentId: "agent-1",
        agentLabel: "agent-1 label",
        agentCategory: "agent",
        kind: "payment_sent",
        counterpartyAddress: GATEWAY,
        counterpartyLabel: "Tempo MPP gateway",
        counterpartyCategory: "gateway",
      },
      {
        ...common,
        agentId: "fal-mpp",
        agentLabel: "fal.ai",
        agentCategory: "service",
        kind: "payment_received",
        counterpartyAddress: AGENT,
        counterpartyLabel: "agent-1 label",
        counterpartyCategory: "agent",
      },
      expect.objectContaining({ agentId: "agent-1", kind: "fee_paid", amountWei: 30n, attribution: null, clientFingerprint: null, channelId: null }),
    ]);
    expect(trace).toEqual([
      { txHash: tx, logIndex: t!.logIndex, note: "attributed_to_service", agentId: "fal-mpp" },
      { txHash: tx, logIndex: t!.logIndex, note: "charge_of_service", agentId: "tempo-gateway" },
      { txHash: tx, logIndex: fee.logIndex, note: "fee" },
    ]);
    // v0.2 gave the same payment to the gateway
    expect(matchLogsV02([t!, m!], context()).map((r) => `${r.agentId}:${r.kind}`)).toEqual(["agent-1:payment_sent", "tempo-gateway:payment_received"]);
  });

  it("an unregistered payer's charge is still fal's (one row, fal's view); a realm-derived serverId says so", () => {
    const { rows } = run(charge(newTx(), STRANGER, GATEWAY, 700n, mppMemo("fal.mpp.tempo.xyz", "x")));
    expect(rows.map((r) => [r.agentId, r.kind, r.counterpartyAddress, r.attribution])).toEqual([["fal-mpp", "payment_received", STRANGER, "server_id_host"]]);
    const shop = run(charge(newTx(), AGENT, SHOP_WALLET, 5n, mppMemo("shop.example", "x"))).rows;
    expect(shop.map((r) => [r.agentId, r.kind, r.attribution, r.routedToLabel])).toEqual([
      ["agent-1", "payment_sent", "server_id_realm", "Shop"],
      ["shop-mpp", "payment_received", "server_id_realm", "Shop"],
    ]);
  });

  it("an unknown serverId falls back to the recipient wallet, grouped by its fingerprint and labelled from fingerprint_labels", () => {
    const tx = newTx();
    const { rows, notes } = run(charge(tx, AGENT, GATEWAY, 900n, mppMemo("unknown.mpp.tempo.xyz", "agent-alpha")));
    expect(rows.map((r) => [r.agentId, r.kind, r.counterpartyAddress])).toEqual([
      ["agent-1", "payment_sent", GATEWAY],
      ["tempo-gateway", "payment_received", AGENT],
    ]);
    for (const r of rows) {
      expect(r).toMatchObject({
        attribution: "recipient_wallet",
        routedToAddress: "",
        routedToLabel: "Unknown (via gateway)",
        routedFingerprint: UNKNOWN_SERVER_ID,
        clientFingerprint: fingerprint("agent-alpha"),
      });
    }
    expect(notes).toEqual([]);
  });

  it("a serverId the registry links to a provider address (v0.2 rule 3) carries that address; the provider views count its settlement leg instead", () => {
    const tx = newTx();
    const linked = context({ fingerprintProviders: new Map([[FAL_SERVER_ID, PAYEE]]) });
    const { rows } = run(charge(tx, AGENT, GATEWAY, 900n, mppMemo("fal.mpp.tempo.xyz", "agent-alpha")), linked);
    expect(rows.map((r) => [r.agentId, r.routedToAddress, r.routedToLabel, r.routedFingerprint])).toEqual([
      ["agent-1", PAYEE, "Session service", FAL_SERVER_ID],
      ["fal-mpp", PAYEE, "Session service", FAL_SERVER_ID],
    ]);
    expect(computeRollups(rows).providerTotals).toEqual([]);
  });

  it("an anonymous client (10 zero bytes) has no client fingerprint", () => {
    const { rows } = run(charge(newTx(), AGENT, GATEWAY, 900n, mppMemo("fal.mpp.tempo.xyz", null)));
    expect(rows.map((r) => r.clientFingerprint)).toEqual([null, null]);
    expect(rows.map((r) => r.agentId)).toEqual(["agent-1", "fal-mpp"]);
  });

  it("a payment without an MPP memo is the recipient's, attribution recipient_wallet, no routing", () => {
    const { rows } = run([transfer(newTx(), AGENT, SHOP_WALLET, 4n), ...charge(newTx(), AGENT, SHOP_WALLET, 4n, stringToHex("invoice 42", { size: 32 }))]);
    expect(rows.map((r) => [r.agentId, r.kind, r.attribution, r.routedFingerprint, r.routedToLabel, r.clientFingerprint])).toEqual([
      ["agent-1", "payment_sent", "recipient_wallet", null, "", null],
      ["shop-mpp", "payment_received", "recipient_wallet", null, "", null],
      ["agent-1", "payment_sent", "recipient_wallet", null, "", null],
      ["shop-mpp", "payment_received", "recipient_wallet", null, "", null],
    ]);
  });
});

describe("v0.3 rule 2, anti-spoof: a serverId alone does not make a payment the service's", () => {
  it("a self-transfer carrying fal's memo is attributed to nobody", () => {
    const { rows, notes } = run(charge(newTx(), STRANGER, STRANGER, 10n ** 12n, mppMemo("fal.mpp.tempo.xyz", "x")));
    expect(rows).toEqual([]);
    expect(notes).toEqual(["server_id_mismatch"]);
    const watchedSelf = run(charge(newTx(), AGENT, AGENT, 10n ** 12n, mppMemo("fal.mpp.tempo.xyz", "x")));
    expect(watchedSelf.rows).toEqual([]);
    expect(watchedSelf.notes).toEqual(["server_id_mismatch", "internal"]);
  });

  it("a service with registered wallets is paid only at one of them or at a gateway; elsewhere the recipient rule applies", () => {
    const spoof = run(charge(newTx(), AGENT, OUTSIDER, 50n, mppMemo("shop.example", "x")));
    expect(spoof.rows.map((r) => [r.agentId, r.kind, r.counterpartyAddress, r.attribution, r.routedToLabel, r.routedFingerprint])).toEqual([
      ["agent-1", "payment_sent", OUTSIDER, "recipient_wallet", "", SHOP_SERVER_ID],
    ]);
    expect(spoof.notes).toEqual(["server_id_mismatch"]);
    // an outsider paying another outsider with the shop's memo gives the shop nothing
    expect(run(charge(newTx(), STRANGER, OUTSIDER, 50n, mppMemo("shop.example", "x"))).rows).toEqual([]);
    // a watched non-gateway recipient keeps the payment as its own
    expect(run(charge(newTx(), AGENT, PARTNER, 50n, mppMemo("shop.example", "x"))).kinds).toEqual(["agent-1:payment_sent", "partner:payment_received"]);
    // through the gateway it is the shop's
    expect(run(charge(newTx(), AGENT, GATEWAY, 50n, mppMemo("shop.example", "x"))).kinds).toEqual(["agent-1:payment_sent", "shop-mpp:payment_received"]);
  });

  it("a service known only by its server ids (no wallets) takes any recipient but the payer itself: its wallets close that door", () => {
    expect(run(charge(newTx(), AGENT, OUTSIDER, 50n, mppMemo("fal.mpp.tempo.xyz", "x"))).kinds).toEqual(["agent-1:payment_sent", "fal-mpp:payment_received"]);
  });

  it("a service paying itself through its gateway is an internal move", () => {
    const { rows, notes } = run(charge(newTx(), SHOP_WALLET, GATEWAY, 50n, mppMemo("shop.example", "x")));
    expect(rows).toEqual([]);
    expect(notes).toEqual(["internal"]);
  });
});

describe("v0.3 rule 3: split legs", () => {
  it("a plain transfer of the charge's payer to another recipient is its own payment with the charge's route", () => {
    const tx = newTx();
    const [t, m] = charge(tx, AGENT, GATEWAY, 900n, mppMemo("fal.mpp.tempo.xyz", "agent-alpha"));
    const leg = transfer(tx, AGENT, PARTNER, 100n);
    const loose = transfer(tx, AGENT, OUTSIDER, 7n);
    const { rows, trace } = run([t!, m!, leg, loose]);
    expect(rows.map((r) => [r.agentId, r.kind, r.amountWei, r.counterpartyAddress, r.logIndex])).toEqual([
      ["agent-1", "payment_sent", 900n, GATEWAY, t!.logIndex],
      ["fal-mpp", "payment_received", 900n, AGENT, t!.logIndex],
      ["agent-1", "payment_sent", 100n, PARTNER, leg.logIndex],
      ["partner", "payment_received", 100n, AGENT, leg.logIndex],
      ["agent-1", "payment_sent", 7n, OUTSIDER, loose.logIndex],
    ]);
    for (const r of rows) {
      expect(r).toMatchObject({
        routedFingerprint: FAL_SERVER_ID,
        routedToLabel: "fal.ai",
        routedToAddress: "",
        attribution: "server_id_host",
        clientFingerprint: fingerprint("agent-alpha"),
      });
    }
    expect(trace.filter((x) => x.note === "split_leg").map((x) => x.logIndex)).toEqual([leg.logIndex, loose.logIndex]);
  });

  it("not a split: another payer's transfer, another token's, a transfer back to the payer, the FeeManager fee, a funding move", () => {
    const tx = newTx();
    const logs = [
      ...charge(tx, AGENT, GATEWAY, 900n, mppMemo("fal.mpp.tempo.xyz", "a")),
      transfer(tx, PARTNER, SHOP_WALLET, 3n),
      transfer(tx, AGENT, PARTNER, 2n, JUNK),
      transfer(tx, AGENT, EXCHANGE, 5n),
      transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 1n),
    ];
    const { rows, notes } = run(logs);
    expect(rows.filter((r) => r.amountWei !== 900n).map((r) => [r.agentId, r.kind, r.routedFingerprint, r.attribution])).toEqual([
      ["partner", "payment_sent", null, "recipient_wallet"],
      ["shop-mpp", "payment_received", null, "recipient_wallet"],
      ["agent-1", "funding_sent", null, null],
      ["agent-1", "fee_paid", null, null],
    ]);
    expect(notes).not.toContain("split_leg");
  });
});

describe("v0.3 rule 4: sessions, read from the escrow's own events", () => {
  const CHANNEL = `0x${"c1".repeat(32)}` as Hex;
  /** open 10,000 → top-up 5,000 → settle 3,000 → settle 2,000 (cumulative 5,000) → close paying 1,500 more (total 6,500), refund 8,500. */
  const lifecycle = (abi: Abi, payer: string, payee: string) => {
    const txs = [newTx(), newTx(), newTx(), newTx(), newTx()] as const;
    return {
      txs,
      logs: [
        ...session.open(txs[0], abi, CHANNEL, payer, payee, 10_000n),
        ...session.topUp(txs[1], abi, CHANNEL, payer, payee, 5_000n, 15_000n),
        ...session.settle(txs[2], abi, CHANNEL, payer, payee, 3_000n, 3_000n),
        ...session.settle(txs[3], abi, CHANNEL, payer, payee, 5_000n, 2_000n),
        ...session.close(txs[4], abi, CHANNEL, payer, payee, 1_500n, 6_500n, 8_500n),
      ],
    };
  };

  it.each(["legacy", "precompile"] as const)(
    "%s: open → top-up → settle → settle → close counts the payee's payouts exactly once; deposit, top-up and refund are funding",
    (abi) => {
      const escrow = escrowOf(abi);
      const escrowId = abi === "legacy" ? "mpp-session-escrow" : "mpp-channel-reserve";
      const { logs } = lifecycle(abi, AGENT, PAYEE);
      const { rows, notes } = run(logs);
      expect(rows.map((r) => [r.agentId, r.kind, r.amountWei, r.counterpartyAddress])).toEqual([
        ["agent-1", "funding_sent", 10_000n, escrow],
        [escrowId, "funding_received", 10_000n, AGENT],
        ["agent-1", "funding_sent", 5_000n, escrow],
        [escrowId, "funding_received", 5_000n, AGENT],
        ["agent-1", "payment_sent", 3_000n, PAYEE],
        ["session-svc", "payment_received", 3_000n, AGENT],
        ["agent-1", "payment_sent", 2_000n, PAYEE],
        ["session-svc", "payment_received", 2_000n, AGENT],
        ["agent-1", "payment_sent", 1_500n, PAYEE],
        ["session-svc", "payment_received", 1_500n, AGENT],
        [escrowId, "funding_sent", 8_500n, AGENT],
        ["agent-1", "funding_received", 8_500n, escrow],
      ]);
      expect(paymentsOnce(rows)).toEqual([3_000n, 2_000n, 1_500n]); // 6,500 = ChannelClosed.settledToPayee, counted once
      expect(rows.every((r) => r.channelId === CHANNEL)).toBe(true);
      for (const r of activity(rows))
        expect(r).toMatchObject({
          attribution: "session_escrow",
          routedToAddress: PAYEE,
          routedToLabel: "Session service",
          routedFingerprint: null,
          clientFingerprint: null,
        });
      for (const r of rows.filter((x) => x.kind.startsWith("funding")))
        expect(r).toMatchObject({ attribution: null, routedToAddress: "", routedFingerprint: null });
      expect(notes).toEqual(["session_funding", "session_funding", "session_payout", "session_payout", "session_payout", "session_funding"]);
      // the provider view: what reached the payee, once
      const r = computeRollups(rows);
      expect(r.providerTotals.map((p) => [p.providerKey, p.pattern, p.paymentsCount, p.amountSumWei])).toEqual([[PAYEE, "address", 3, 6_500n]]);
      expect(r.hourly.ledger.reduce((s, b) => s + b.amountSumWei, 0n)).toBe(6_500n);
    },
  );

  it("neither party registered: one settlement_sent row per payout from the escrow's view, counterparty the payee", () => {
    const { logs } = lifecycle("legacy", STRANGER, LOOSE_PAYEE);
    const { rows } = run(logs);
    expect(rows.filter((r) => r.kind.startsWith("settlement")).map((r) => [r.agentId, r.kind, r.amountWei, r.counterpartyAddress, r.routedToAddress])).toEqual([
      ["mpp-session-escrow", "settlement_sent", 3_000n, LOOSE_PAYEE, LOOSE_PAYEE],
      ["mpp-session-escrow", "settlement_sent", 2_000n, LOOSE_PAYEE, LOOSE_PAYEE],
      ["mpp-session-escrow", "settlement_sent", 1_500n, LOOSE_PAYEE, LOOSE_PAYEE],
    ]);
    expect(activity(rows)).toEqual([]);
    expect(rows.filter((r) => !r.kind.startsWith("settlement")).map((r) => r.kind)).toEqual(["funding_received", "funding_received", "funding_sent"]);
    const r = computeRollups(rows);
    expect(r.providerTotals.map((p) => [p.providerKey, p.paymentsCount, p.amountSumWei])).toEqual([[LOOSE_PAYEE, 3, 6_500n]]);
  });

  it("only the watched side of a payout has a row, with the other party (never the escrow) as counterparty", () => {
    const tx = newTx();
    const payerSide = run(session.settle(tx, "legacy", CHANNEL, AGENT, LOOSE_PAYEE, 40n, 40n)).rows;
    expect(payerSide.map((r) => [r.agentId, r.kind, r.counterpartyAddress, r.routedToAddress])).toEqual([
      ["agent-1", "payment_sent", LOOSE_PAYEE, LOOSE_PAYEE],
    ]);
    const payeeSide = run(session.settle(newTx(), "precompile", CHANNEL, STRANGER, PAYEE, 40n, 40n)).rows;
    expect(payeeSide.map((r) => [r.agentId, r.kind, r.counterpartyAddress, r.routedToAddress])).toEqual([["session-svc", "payment_received", STRANGER, PAYEE]]);
  });

  it("a close with no new voucher pays nothing, even though settledToPayee carries the channel's earlier total", () => {
    const tx = newTx();
    const { rows, notes } = run(session.close(tx, "legacy", CHANNEL, AGENT, PAYEE, 0n, 5_000n, 10_000n));
    expect(rows.map((r) => [r.agentId, r.kind, r.amountWei])).toEqual([
      ["mpp-session-escrow", "funding_sent", 10_000n],
      ["agent-1", "funding_received", 10_000n],
    ]);
    expect(notes).toEqual(["session_funding"]);
    // the payer's withdraw after the grace period looks the same on the precompile: refund only
    expect(activity(run(session.close(newTx(), "precompile", CHANNEL, AGENT, PAYEE, 0n, 5_000n, 10_000n)).rows)).toEqual([]);
  });

  it("a payout must match the event: another amount than deltaPaid, another payee, or an event of an unregistered contract pays nothing", () => {
    const tx = newTx();
    const wrongDelta = [transfer(tx, LEGACY_ESCROW, PAYEE, 41n), escrowEvent(tx, "legacy", "Settled", CHANNEL, AGENT, PAYEE, [40n, 40n, 40n])];
    expect(activity(run(wrongDelta).rows)).toEqual([]);
    expect(run(wrongDelta).notes).toEqual(["session_funding"]);
    const tx2 = newTx();
    const otherPayee = [transfer(tx2, LEGACY_ESCROW, PARTNER, 40n), escrowEvent(tx2, "legacy", "Settled", CHANNEL, AGENT, PAYEE, [40n, 40n, 40n])];
    expect(activity(run(otherPayee).rows)).toEqual([]);
    // an unregistered contract paying a payee and emitting Settled naming a watched agent as payer: a plain payment of
    // that contract, the agent pays nothing
    const tx3 = newTx();
    const fake = [transfer(tx3, OUTSIDER, PAYEE, 40n), escrowEvent(tx3, "legacy", "Settled", CHANNEL, AGENT, PAYEE, [40n, 40n, 40n], OUTSIDER)];
    expect(run(fake).rows.map((r) => [r.agentId, r.kind, r.counterpartyAddress, r.attribution, r.channelId])).toEqual([
      ["session-svc", "payment_received", OUTSIDER, "recipient_wallet", null],
    ]);
    // a close cannot pay the payee more than the channel's settled total
    const tx4 = newTx();
    const tooMuch = [transfer(tx4, LEGACY_ESCROW, PAYEE, 41n), escrowEvent(tx4, "legacy", "ChannelClosed", CHANNEL, AGENT, PAYEE, [40n, 0n])];
    expect(activity(run(tooMuch).rows)).toEqual([]);
  });

  it("a payer is never a provider: a channel paying its own payer is no payment", () => {
    const tx = newTx();
    const { rows, notes } = run([
      ...session.settle(tx, "legacy", CHANNEL, STRANGER, STRANGER, 40n, 40n),
      ...session.close(newTx(), "precompile", CHANNEL, AGENT, AGENT, 30n, 70n, 5n),
    ]);
    expect(activity(rows)).toEqual([]);
    expect(rows.some((r) => r.routedToAddress !== "")).toBe(false);
    expect(notes).toEqual(["session_self", "session_self", "session_funding"]); // the close: its payout (self), its refund
  });

  it("money sent to an escrow without an event is funding, never a payment of the escrow", () => {
    const { rows, notes } = run([transfer(newTx(), AGENT, LEGACY_ESCROW, 99n), ...charge(newTx(), AGENT, PRECOMPILE, 5n, mppMemo("fal.mpp.tempo.xyz", "a"))]);
    expect(rows.map((r) => [r.agentId, r.kind, r.channelId])).toEqual([
      ["agent-1", "funding_sent", null],
      ["mpp-session-escrow", "funding_received", null],
      ["agent-1", "funding_sent", null],
      ["mpp-channel-reserve", "funding_received", null],
    ]);
    expect(notes).toEqual(["session_funding", "session_funding"]);
  });

  it("one transaction settling two channels of one payee pays each delta once", () => {
    const tx = newTx();
    const other = `0x${"c2".repeat(32)}` as Hex;
    const logs = [...session.settle(tx, "legacy", CHANNEL, AGENT, PAYEE, 10n, 10n), ...session.settle(tx, "legacy", other, STRANGER, PAYEE, 25n, 25n)];
    const { rows } = run(logs);
    expect(rows.map((r) => [r.agentId, r.kind, r.amountWei, r.counterpartyAddress, r.channelId])).toEqual([
      ["agent-1", "payment_sent", 10n, PAYEE, CHANNEL],
      ["session-svc", "payment_received", 10n, AGENT, CHANNEL],
      ["session-svc", "payment_received", 25n, STRANGER, other],
    ]);
  });
});

describe("v0.3: TIP-1022 virtual addresses", () => {
  const VIRTUAL = "0x07a3b1c2fdfdfdfdfdfdfdfdfdfdd4e5a7c3f19e"; // masterId 07a3b1c2, magic, userTag (tips/tip-1022.md's example)
  it("Transfer(from, virtual) then Transfer(virtual, master) in one transaction is one payment to the master", () => {
    const tx = newTx();
    const first = transfer(tx, AGENT, VIRTUAL, 60n);
    const { rows, trace } = run([first, transfer(tx, VIRTUAL, SHOP_WALLET, 60n)]);
    expect(rows.map((r) => [r.agentId, r.kind, r.amountWei, r.counterpartyAddress, r.logIndex])).toEqual([
      ["agent-1", "payment_sent", 60n, SHOP_WALLET, first.logIndex],
      ["shop-mpp", "payment_received", 60n, AGENT, first.logIndex],
    ]);
    expect(trace.map((t) => t.note)).toEqual(["virtual_forward"]);
  });

  it("with a memo (Transfer, TransferWithMemo, then the hop): a charge to the service's master wallet", () => {
    const tx = newTx();
    const logs = [...charge(tx, AGENT, VIRTUAL, 60n, mppMemo("shop.example", "a")), transfer(tx, VIRTUAL, SHOP_WALLET, 60n)];
    const { rows } = run(logs);
    expect(rows.map((r) => [r.agentId, r.kind, r.attribution])).toEqual([
      ["agent-1", "payment_sent", "server_id_realm"],
      ["shop-mpp", "payment_received", "server_id_realm"],
    ]);
  });

  it("a master sending to its own virtual address moves nothing; a hop of another amount is no forward", () => {
    const tx = newTx();
    expect(run([transfer(tx, SHOP_WALLET, VIRTUAL, 5n), transfer(tx, VIRTUAL, SHOP_WALLET, 5n)]).rows).toEqual([]);
    const tx2 = newTx();
    const { rows } = run([transfer(tx2, AGENT, VIRTUAL, 5n), transfer(tx2, VIRTUAL, SHOP_WALLET, 6n)]);
    // two unrelated transfers, each with the virtual address as counterparty
    expect(rows.map((r) => [r.agentId, r.kind, r.amountWei, r.counterpartyAddress])).toEqual([
      ["agent-1", "payment_sent", 5n, VIRTUAL],
      ["shop-mpp", "payment_received", 6n, VIRTUAL],
    ]);
  });

  it("a session paying the payer's own virtual address is no payment, and routes to nobody", () => {
    const tx = newTx();
    const logs = [
      transfer(tx, PRECOMPILE, VIRTUAL, 40n),
      transfer(tx, VIRTUAL, STRANGER, 40n),
      escrowEvent(tx, "precompile", "Settled", `0x${"c5".repeat(32)}`, STRANGER, VIRTUAL, [40n, 40n, 40n]),
    ];
    const { rows, notes } = run(logs);
    expect(rows.map((r) => [r.agentId, r.kind, r.routedToAddress])).toEqual([["mpp-channel-reserve", "funding_sent", ""]]);
    expect(notes).toEqual(["virtual_forward", "session_self"]);
  });

  it("a session payee's virtual address: the payout reaches the master, routed to it", () => {
    const tx = newTx();
    const logs = [
      transfer(tx, PRECOMPILE, VIRTUAL, 40n),
      transfer(tx, VIRTUAL, PAYEE, 40n),
      escrowEvent(tx, "precompile", "Settled", `0x${"c3".repeat(32)}`, AGENT, VIRTUAL, [40n, 40n, 40n]),
    ];
    expect(run(logs).rows.map((r) => [r.agentId, r.kind, r.routedToAddress])).toEqual([
      ["agent-1", "payment_sent", PAYEE],
      ["session-svc", "payment_received", PAYEE],
    ]);
  });
});

describe("v0.3 keeps v0.2's rules", () => {
  it("allowlist, solo memo, funding, fees, internal moves, milliseconds", () => {
    const tx = newTx();
    const { rows, notes } = run([
      transfer(tx, AGENT, SHOP_WALLET, 1n, JUNK),
      withMemo(tx, AGENT, SHOP_WALLET, 2n, mppMemo("shop.example", "a")),
      transfer(tx, EXCHANGE, AGENT, 3n),
      transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 4n),
      transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 5n),
    ]);
    expect(notes).toEqual(["not_allowlisted_token", "solo_memo", "funding", "fee_amm", "fee"]);
    expect(rows.map((r) => [r.kind, r.amountWei, r.ts.getTime()])).toEqual([
      ["funding_received", 3n, 1_790_000_000_250],
      ["fee_paid", 5n, 1_790_000_000_250],
    ]);
  });

  it("matchLogs dispatches v0.3; v0.1 and v0.2 rows of the same logs carry null v0.3 fields", () => {
    const logs = charge(newTx(), AGENT, GATEWAY, 9n, mppMemo("fal.mpp.tempo.xyz", "a"));
    expect(matchLogs(logs, context(), "v0.3")).toEqual(matchLogsV03(logs, context()));
    for (const v of ["v0.1", "v0.2"]) {
      for (const r of matchLogs(logs, context(), v))
        expect(r).toMatchObject({ attribution: null, clientFingerprint: null, channelId: null, methodologyVersion: v });
    }
  });
});

describe("v0.3 rule 5: all rows of one (tx_hash, log_index) share their kind family and routing", () => {
  it("holds across charges, splits, sessions and fees in one transaction", () => {
    const tx = newTx();
    const channel = `0x${"c4".repeat(32)}` as Hex;
    const logs = [
      ...charge(tx, AGENT, GATEWAY, 900n, mppMemo("fal.mpp.tempo.xyz", "a")),
      transfer(tx, AGENT, PARTNER, 100n),
      ...session.open(tx, "legacy", channel, AGENT, PAYEE, 50n),
      ...session.settle(tx, "legacy", channel, AGENT, PAYEE, 20n, 20n),
      ...session.close(tx, "legacy", channel, AGENT, PAYEE, 5n, 25n, 25n),
      transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 1n),
    ];
    const rows = run(logs).rows;
    const family = (k: string) => k.split("_")[0];
    const byPayment = new Map<string, EventDraft[]>();
    for (const r of rows) byPayment.set(`${r.logIndex}`, [...(byPayment.get(`${r.logIndex}`) ?? []), r]);
    expect(byPayment.size).toBe(7);
    for (const group of byPayment.values()) {
      const [a] = group;
      for (const r of group) {
        expect(family(r.kind)).toBe(family(a!.kind));
        expect([r.routedToAddress, r.routedToLabel, r.routedFingerprint, r.attribution, r.clientFingerprint, r.channelId]).toEqual([
          a!.routedToAddress,
          a!.routedToLabel,
          a!.routedFingerprint,
          a!.attribution,
          a!.clientFingerprint,
          a!.channelId,
        ]);
      }
    }
    // no payer is ever a provider
    expect(rows.some((r) => r.routedToAddress === AGENT)).toBe(false);
  });

  it("is deterministic and works without a trace", () => {
    const logs = [...charge(newTx(), AGENT, GATEWAY, 9n, mppMemo("fal.mpp.tempo.xyz", "a"))];
    expect(matchLogsV03(logs, context())).toEqual(run(logs).rows);
  });
});
