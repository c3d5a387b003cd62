import { encodeAbiParameters, encodeEventTopics, getAddress, parseAbiItem, stringToHex, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { computeRollups } from "../rollups/computeRollups.ts";
import { FEE_MANAGER_ADDRESS, SETTLEMENT_TOPIC_MAINNET, ZERO_ADDRESS } from "./constants.ts";
import { matchLogs } from "./matchLogs.ts";
import { matchLogsV02, type V02Trace } from "./matchLogsV02.ts";
import type { MatchContext, RawLog, WatchedEntity } from "./types.ts";

// Every methodology v0.2 rule (docs/methodology.md), each case matched under v0.1 (old behaviour kept) and v0.2.
// Logs are encoded with viem from the real ABIs, the way a node returns them.
const settlementEvent = parseAbiItem(
  "event Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)",
);
const PATH_USD = "0x20c0000000000000000000000000000000000000";
const ALPHA_USD = "0x20c0000000000000000000000000000000000001";
const JUNK_TIP20 = "0x20c00000000000000000000000000000000000ff"; // made by the factory, not allowlisted
const NOT_A_TOKEN = "0x4444444444444444444444444444444444444444";
const AGENT = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
const AGENT_2 = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2";
const SERVICE = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2";
const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe";
const ESCROW = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
const PROVIDER = "0x1111111111111111111111111111111111111111";
const FAUCET = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const TREASURY = "0x7777777777777777777777777777777777777777";
const OUTSIDER = "0x9999999999999999999999999999999999999999";
const FP_IMAGE = "0102030405060708090a";
const FP_LOOSE = "ffeeddccbbaa99887766";

let nextLogIndex = 0;
let nextTx = 1;
const newTx = (): Hex => `0x${(nextTx++).toString(16).padStart(64, "0")}`;
function base(tx: Hex): Omit<RawLog, "address" | "topics" | "data"> {
  return { blockNumber: 100n, blockHash: "0x" + "cd".repeat(32), blockTimestamp: 1_790_000_000, txHash: tx, txIndex: 0, logIndex: nextLogIndex++ };
}
function transfer(tx: Hex, from: string, to: string, amount: bigint, token = PATH_USD): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "Transfer", args: { from: getAddress(from), to: getAddress(to) } });
  return { ...base(tx), address: token, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }], [amount]) };
}
function transferWithMemo(tx: Hex, from: string, to: string, amount: bigint, memo: Hex, token = PATH_USD): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "TransferWithMemo", args: { from: getAddress(from), to: getAddress(to), memo } });
  return { ...base(tx), address: token, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }], [amount]) };
}
function memoPayment(tx: Hex, from: string, to: string, amount: bigint, memo: Hex, token = PATH_USD): RawLog[] {
  return [transfer(tx, from, to, amount, token), transferWithMemo(tx, from, to, amount, memo, token)];
}
function settlement(tx: Hex, provider: string, gateway: string, amountIn: bigint, amountOut: bigint, contract = ESCROW): RawLog {
  const topics = encodeEventTopics({
    abi: [settlementEvent],
    args: { sessionRef: stringToHex("session-1", { size: 32 }), serviceProvider: getAddress(provider), gateway: getAddress(gateway) },
  });
  return {
    ...base(tx),
    address: contract,
    topics: topics as string[],
    data: encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [amountIn, amountOut]),
  };
}
const gatewayMemo = (fingerprint: string, nonce: number): Hex => `0xef1ed71201${fingerprint}${"00".repeat(8)}${nonce.toString(16).padStart(14, "0")}0000`;

const entity = (id: string, category: string, trackFees = false): WatchedEntity => ({ id, label: id, category, trackFees });
function context(overrides: Partial<MatchContext> = {}): MatchContext {
  return {
    wallets: new Map([
      [AGENT, entity("demo-agent", "agent", true)],
      [AGENT_2, entity("demo-agent", "agent", true)],
      [SERVICE, entity("weather-api-mpp", "service")],
      [GATEWAY, entity("tempo-gateway-mpp", "gateway")],
    ]),
    addressLabels: new Map([
      [PROVIDER, { label: "Image provider", category: "provider" }],
      [FAUCET, { label: "Devnet faucet", category: "faucet" }],
    ]),
    fingerprintLabels: new Map([
      [`0x${FP_IMAGE}`, { label: "Image (via gateway)", category: "provider" }],
      [`0x${FP_LOOSE}`, { label: "Loose (via gateway)", category: "provider" }],
    ]),
    settlementContracts: new Set([ESCROW]),
    explorerBaseUrl: "http://127.0.0.1:4000/explorer/",
    tokens: new Map([
      [PATH_USD, { symbol: "pathUSD", decimals: 6, currency: "USD" }],
      [ALPHA_USD, { symbol: "AlphaUSD", decimals: 6, currency: "USD" }],
    ]),
    fingerprintProviders: new Map([[`0x${FP_IMAGE}`, PROVIDER]]),
    ...overrides,
  };
}
const v01 = (logs: RawLog[], ctx = context()) => matchLogs(logs, ctx, "v0.1");
const v02 = (logs: RawLog[], ctx = context()) => matchLogs(logs, ctx, "v0.2");
const kinds = (rows: { agentId: string; kind: string }[]) => rows.map((r) => `${r.agentId}:${r.kind}`);

describe("methodology v0.2, rule 1: only allowlisted tokens", () => {
  it("a contract that is not a token emitting Transfer to a watched wallet: v0.1 a payment, v0.2 nothing", () => {
    const tx = newTx();
    const logs = [transfer(tx, OUTSIDER, AGENT, 10n ** 30n, NOT_A_TOKEN)];
    expect(v01(logs)).toEqual([expect.objectContaining({ kind: "payment_received", amountWei: 10n ** 30n, tokenAddress: NOT_A_TOKEN })]);
    const trace: V02Trace[] = [];
    expect(matchLogsV02(logs, context(), trace)).toEqual([]);
    expect(trace).toEqual([{ txHash: tx, logIndex: logs[0]!.logIndex, note: "not_allowlisted_token" }]);
  });

  it("a junk factory TIP-20 sent and minted to a watched agent: v0.1 two payments, v0.2 nothing", () => {
    const logs = [transfer(newTx(), OUTSIDER, AGENT, 5n * 10n ** 24n, JUNK_TIP20), transfer(newTx(), ZERO_ADDRESS, AGENT, 7n * 10n ** 24n, JUNK_TIP20)];
    expect(kinds(v01(logs))).toEqual(["demo-agent:payment_received", "demo-agent:payment_received"]);
    expect(v02(logs)).toEqual([]);
  });

  it("an allowlisted token still pays, and a registry without tokens matches nothing under v0.2", () => {
    const logs = [transfer(newTx(), AGENT, SERVICE, 1_500_000n, ALPHA_USD)];
    expect(kinds(v02(logs))).toEqual(["demo-agent:payment_sent", "weather-api-mpp:payment_received"]);
    expect(v02(logs, context({ tokens: undefined }))).toEqual([]);
    expect(v01(logs, context({ tokens: undefined }))).toHaveLength(2);
  });
});

describe("methodology v0.2, rule 2: a solo TransferWithMemo is not a payment", () => {
  it("v0.1 counts it on its own log index, v0.2 drops it and notes why", () => {
    const tx = newTx();
    const log = transferWithMemo(tx, OUTSIDER, AGENT, 7n, stringToHex("forged", { size: 32 }));
    expect(v01([log])).toEqual([expect.objectContaining({ kind: "payment_received", logIndex: log.logIndex })]);
    const trace: V02Trace[] = [];
    expect(matchLogsV02([log], context(), trace)).toEqual([]);
    expect(trace).toEqual([{ txHash: tx, logIndex: log.logIndex, note: "solo_memo" }]);
  });

  it("a paired memo stays one payment at the Transfer's log index carrying the memo", () => {
    const logs = memoPayment(newTx(), AGENT, GATEWAY, 100n, gatewayMemo(FP_LOOSE, 1));
    for (const rows of [v01(logs), v02(logs)]) {
      expect(rows.map((r) => [r.kind, r.logIndex, r.routedFingerprint])).toEqual([
        ["payment_sent", logs[0]!.logIndex, `0x${FP_LOOSE}`],
        ["payment_received", logs[0]!.logIndex, `0x${FP_LOOSE}`],
      ]);
    }
  });
});

describe("methodology v0.2, rule 3: one payment counted once, one provider one key", () => {
  // An MPP flow: the agent pays the gateway (Pattern B memo of a fingerprint linked to PROVIDER), later the gateway
  // settles to the provider through the trusted escrow (Pattern A).
  const flow = () => {
    const pay = newTx();
    const settle = newTx();
    return [
      ...memoPayment(pay, AGENT, GATEWAY, 1_000n, gatewayMemo(FP_IMAGE, 1)),
      transfer(settle, GATEWAY, PROVIDER, 950n),
      settlement(settle, PROVIDER, GATEWAY, 1_000n, 950n),
    ];
  };

  it("v0.1 counts agent → gateway and gateway → provider as two payments (1.95×) and two provider keys", () => {
    const rollups = computeRollups(v01(flow()));
    expect(rollups.hourly.ledger).toEqual([expect.objectContaining({ paymentsCount: 2, amountSumWei: 1_950n })]);
    expect(rollups.providerTotals.map((p) => p.providerKey).sort()).toEqual([`0x${FP_IMAGE}`, PROVIDER].sort());
  });

  it("v0.2: the agent's payment is the activity, the settlement leg an attribute of its route; one provider", () => {
    const logs = flow();
    const rows = v02(logs);
    expect(rows.map((r) => [r.agentId, r.kind, r.amountWei, r.routedToAddress, r.routedToLabel, r.routedFingerprint])).toEqual([
      ["demo-agent", "payment_sent", 1_000n, PROVIDER, "Image provider", `0x${FP_IMAGE}`],
      ["tempo-gateway-mpp", "payment_received", 1_000n, PROVIDER, "Image provider", `0x${FP_IMAGE}`],
      ["tempo-gateway-mpp", "settlement_sent", 950n, PROVIDER, "Image provider", null],
    ]);
    const rollups = computeRollups(rows);
    expect(rollups.hourly.ledger).toEqual([expect.objectContaining({ paymentsCount: 1, amountSumWei: 1_000n })]);
    // provider view: what reached the provider, once, under its address
    expect(rollups.providerTotals).toEqual([expect.objectContaining({ providerKey: PROVIDER, pattern: "address", paymentsCount: 1, amountSumWei: 950n })]);
    // entity counters: the gateway received one payment; its settlement leg is not "sent" activity
    expect(rollups.entityTotals.find((e) => e.entityId === "tempo-gateway-mpp")).toMatchObject({
      sentCount: 0,
      sentSumWei: 0n,
      receivedCount: 1,
      receivedSumWei: 1_000n,
    });
  });

  it("v0.2: a fingerprint without a provider link is its own provider key, counted from the payments", () => {
    const rows = v02(memoPayment(newTx(), AGENT, GATEWAY, 300n, gatewayMemo(FP_LOOSE, 2)));
    expect(rows[0]).toMatchObject({ routedToAddress: "", routedToLabel: "Loose (via gateway)", routedFingerprint: `0x${FP_LOOSE}` });
    expect(computeRollups(rows).providerTotals).toEqual([
      expect.objectContaining({ providerKey: `0x${FP_LOOSE}`, pattern: "fingerprint", paymentsCount: 1, amountSumWei: 300n }),
    ]);
  });
});

describe("methodology v0.2, rule 4: funding and internal moves", () => {
  it("a faucet top-up: v0.1 a payment, v0.2 funding_received kept out of activity", () => {
    const logs = [transfer(newTx(), FAUCET, AGENT, 100_000_000_000n)];
    expect(kinds(v01(logs))).toEqual(["demo-agent:payment_received"]);
    const rows = v02(logs);
    expect(rows).toEqual([
      expect.objectContaining({ kind: "funding_received", counterpartyAddress: FAUCET, counterpartyCategory: "faucet", routedToAddress: "" }),
    ]);
    const rollups = computeRollups(rows);
    expect(rollups.hourly.ledger).toEqual([]);
    expect(rollups.entityTotals).toEqual([expect.objectContaining({ receivedCount: 0, sentCount: 0, feeCount: 0 })]);
  });

  it("a watched treasury entity paying an agent: both sides are funding; a mint of an allowlisted token too", () => {
    const ctx = context();
    (ctx.wallets as Map<string, WatchedEntity>).set(TREASURY, entity("acme-treasury", "treasury"));
    const logs = [transfer(newTx(), TREASURY, AGENT, 50n), transfer(newTx(), ZERO_ADDRESS, AGENT, 60n), transfer(newTx(), AGENT, ZERO_ADDRESS, 70n)];
    expect(kinds(v01(logs, ctx))).toEqual([
      "acme-treasury:payment_sent",
      "demo-agent:payment_received",
      "demo-agent:payment_received",
      "demo-agent:payment_sent",
    ]);
    expect(kinds(v02(logs, ctx))).toEqual([
      "acme-treasury:funding_sent",
      "demo-agent:funding_received",
      "demo-agent:funding_received",
      "demo-agent:funding_sent",
    ]);
  });

  it("a move between two wallets of one entity is no row in either version; an inactive entity is not watched", () => {
    const logs = [transfer(newTx(), AGENT, AGENT_2, 5n)];
    expect(v01(logs)).toEqual([]);
    expect(v02(logs)).toEqual([]);
    const inactive = context();
    (inactive.wallets as Map<string, WatchedEntity>).delete(SERVICE);
    expect(kinds(v02([transfer(newTx(), AGENT, SERVICE, 9n)], inactive))).toEqual(["demo-agent:payment_sent"]);
  });
});

describe("methodology v0.2, rule 5: only the net fee is a fee", () => {
  it("fee-AMM liquidity in and out: v0.1 a second fee and a payment received, v0.2 only the last transfer to the FeeManager", () => {
    const tx = newTx();
    const logs = [
      transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 1_000_000n),
      transfer(tx, FEE_MANAGER_ADDRESS, AGENT, 400_000n),
      transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 11_241n),
    ];
    expect(v01(logs).map((r) => [r.kind, r.amountWei])).toEqual([
      ["fee_paid", 1_000_000n],
      ["payment_received", 400_000n],
      ["fee_paid", 11_241n],
    ]);
    const trace: V02Trace[] = [];
    expect(matchLogsV02(logs, context(), trace).map((r) => [r.kind, r.amountWei, r.logIndex])).toEqual([["fee_paid", 11_241n, logs[2]!.logIndex]]);
    expect(trace.map((t) => t.note)).toEqual(["fee_amm", "fee_amm", "fee"]);
  });
});

describe("methodology v0.2, rule 6: Pattern A routes only the leg the watched gateway settles", () => {
  it("an outsider paying a watched service and calling the trusted escrow as its own provider: v0.1 routes to the outsider, v0.2 does not", () => {
    const tx = newTx();
    // our escrow pulls from msg.sender: the outsider pays itself, and the event names the outsider as gateway
    const logs = [transfer(tx, OUTSIDER, SERVICE, 5_000n), transfer(tx, OUTSIDER, OUTSIDER, 1n), settlement(tx, OUTSIDER, OUTSIDER, 1n, 1n)];
    expect(v01(logs)).toEqual([expect.objectContaining({ agentId: "weather-api-mpp", kind: "payment_received", routedToAddress: OUTSIDER })]);
    expect(v02(logs)).toEqual([
      expect.objectContaining({ agentId: "weather-api-mpp", kind: "payment_received", routedToAddress: "", routedFingerprint: null }),
    ]);
  });

  it("a settlement naming the watched gateway is ignored when the gateway does not send the leg itself", () => {
    const tx = newTx();
    const logs = [transfer(tx, OUTSIDER, SERVICE, 950n), settlement(tx, SERVICE, GATEWAY, 1_000n, 950n)];
    expect(v01(logs)[0]).toMatchObject({ routedToAddress: SERVICE });
    expect(v02(logs)).toEqual([expect.objectContaining({ kind: "payment_received", routedToAddress: "" })]);
  });

  it("a settlement whose gateway is a watched entity that is not a gateway is ignored", () => {
    const tx = newTx();
    const logs = [transfer(tx, SERVICE, PROVIDER, 9n), settlement(tx, PROVIDER, SERVICE, 9n, 9n)];
    expect(v01(logs)[0]).toMatchObject({ routedToAddress: PROVIDER });
    expect(v02(logs)[0]).toMatchObject({ kind: "payment_sent", routedToAddress: "" });
  });

  it("the incoming side and unrelated payments of the transaction are not routed; amounts must match", () => {
    const tx = newTx();
    const logs = [transfer(tx, AGENT, GATEWAY, 1_000n), transfer(tx, GATEWAY, PROVIDER, 950n), settlement(tx, PROVIDER, GATEWAY, 1_000n, 950n)];
    expect(v01(logs).map((r) => r.routedToAddress)).toEqual([PROVIDER, PROVIDER, PROVIDER]);
    expect(v02(logs).map((r) => [r.agentId, r.kind, r.routedToAddress])).toEqual([
      ["demo-agent", "payment_sent", ""],
      ["tempo-gateway-mpp", "payment_received", ""],
      ["tempo-gateway-mpp", "settlement_sent", PROVIDER],
    ]);
    const wrongAmount = [transfer(newTx(), GATEWAY, PROVIDER, 949n)];
    wrongAmount.push(settlement(wrongAmount[0]!.txHash as Hex, PROVIDER, GATEWAY, 1_000n, 950n));
    expect(v02(wrongAmount)).toEqual([expect.objectContaining({ kind: "payment_sent", routedToAddress: "" })]);
  });

  it("several settlements and no recipient match: v0.1 takes the first, v0.2 routes nothing", () => {
    const tx = newTx();
    const other = "0x2222222222222222222222222222222222222222";
    const logs = [
      settlement(tx, other, GATEWAY, 1n, 1n),
      transfer(tx, GATEWAY, PROVIDER, 9n),
      settlement(tx, "0x3333333333333333333333333333333333333333", GATEWAY, 9n, 9n),
    ];
    expect(v01(logs)[0]!.routedToAddress).toBe(other);
    expect(v02(logs)[0]).toMatchObject({ kind: "payment_sent", routedToAddress: "" });
  });

  it("an untrusted contract emitting Settlement routes nothing in either version", () => {
    const tx = newTx();
    const logs = [transfer(tx, GATEWAY, PROVIDER, 9n), settlement(tx, PROVIDER, GATEWAY, 9n, 9n, OUTSIDER)];
    expect(v01(logs)[0]!.routedToAddress).toBe("");
    expect(v02(logs)[0]).toMatchObject({ kind: "payment_sent", routedToAddress: "" });
  });
});

describe("methodology v0.2, rule 7: the settlement event is registry data", () => {
  it("a contract declaring the mainnet topic0 with the provider in topic 3 is read that way; its other topic0 is not", () => {
    const tx = newTx();
    const s = settlement(tx, GATEWAY, PROVIDER, 9n, 9n); // topic 2 = gateway, topic 3 = provider
    const mainnetShaped = { ...s, topics: [SETTLEMENT_TOPIC_MAINNET, ...s.topics.slice(1)] };
    const logs = [transfer(tx, GATEWAY, PROVIDER, 9n), mainnetShaped];
    const declared = context({ settlementEvents: new Map([[ESCROW, { topic0: SETTLEMENT_TOPIC_MAINNET, providerTopic: 3, verified: false }]]) });
    expect(v01(logs, declared)[0]!.routedToAddress).toBe(GATEWAY); // v0.1 always reads topic 2
    expect(v02(logs, declared)[0]).toMatchObject({ kind: "settlement_sent", routedToAddress: PROVIDER });
    // without a declaration v0.2 reads only the devnet Settlement topic0
    expect(v02(logs)[0]).toMatchObject({ kind: "payment_sent", routedToAddress: "" });
    const devnetShaped = [transfer(tx, GATEWAY, PROVIDER, 9n), settlement(tx, PROVIDER, GATEWAY, 9n, 9n)];
    expect(v02(devnetShaped, declared)[0]).toMatchObject({ kind: "payment_sent", routedToAddress: "" });
  });
});

describe("methodology v0.2, rules 8 and 9: milliseconds and the explorer base", () => {
  it("v0.2 keeps the node's milliseconds, v0.1 whole seconds; both link to the context's explorer", () => {
    const tx = newTx();
    const log = { ...transfer(tx, AGENT, SERVICE, 1n), blockTimestampMs: 1_790_000_000_123 };
    expect(v01([log])[0]!.ts.getTime()).toBe(1_790_000_000_000);
    expect(v02([log])[0]!.ts.getTime()).toBe(1_790_000_000_123);
    expect(v02([{ ...log, blockTimestampMs: undefined }])[0]!.ts.getTime()).toBe(1_790_000_000_000);
    expect(v02([log])[0]).toMatchObject({ explorerUrl: `http://127.0.0.1:4000/explorer/tx/${tx}`, methodologyVersion: "v0.2" });
  });

  it("is deterministic", () => {
    const logs = [...memoPayment(newTx(), AGENT, GATEWAY, 4n, gatewayMemo(FP_IMAGE, 9)), transfer(newTx(), FAUCET, AGENT, 1n)];
    expect(v02(logs)).toEqual(v02(logs));
  });
});
