import { encodeAbiParameters, encodeEventTopics, getAddress, parseAbiItem, stringToHex, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { FEE_MANAGER_ADDRESS, SETTLEMENT_TOPIC, SETTLEMENT_TOPIC_MAINNET } from "./constants.ts";
import { matchLogs } from "./matchLogs.ts";
import type { MatchContext, RawLog } from "./types.ts";

// Logs are encoded with viem from the real ABIs, the way a node returns them.
const settlementEvent = parseAbiItem(
  "event Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)",
);
const PATH_USD = "0x20c0000000000000000000000000000000000000";
const ALPHA_USD = "0x20C0000000000000000000000000000000000001";
const AGENT = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
const SERVICE = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2";
const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe";
const ESCROW = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
const PROVIDER = "0x1111111111111111111111111111111111111111";
const STRANGER = "0x9999999999999999999999999999999999999999";
const TX = ("0x" + "ab".repeat(32)) as Hex;

let logIndex = 0;
function base(tx: Hex = TX, block = 100n): Omit<RawLog, "address" | "topics" | "data"> {
  return { blockNumber: block, blockHash: "0x" + "cd".repeat(32), blockTimestamp: 1_790_000_000, txHash: tx, txIndex: 0, logIndex: logIndex++ };
}
function transfer(from: string, to: string, amount: bigint, token = PATH_USD, tx?: Hex): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "Transfer", args: { from: getAddress(from), to: getAddress(to) } });
  return { ...base(tx), address: token, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }], [amount]) };
}
function transferWithMemo(from: string, to: string, amount: bigint, memo: Hex, token = PATH_USD, tx?: Hex): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "TransferWithMemo", args: { from: getAddress(from), to: getAddress(to), memo } });
  return { ...base(tx), address: token, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }], [amount]) };
}
/** transferWithMemo as the chain logs it: Transfer, then TransferWithMemo with the same parties and amount. */
function memoPayment(from: string, to: string, amount: bigint, memo: Hex, token = PATH_USD, tx?: Hex): RawLog[] {
  return [transfer(from, to, amount, token, tx), transferWithMemo(from, to, amount, memo, token, tx)];
}
function settlement(provider: string, gateway: string, amountIn: bigint, amountOut: bigint, contract = ESCROW, tx?: Hex): RawLog {
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
function gatewayMemo(fingerprint: string, nonce: number): Hex {
  return `0xef1ed71201${fingerprint}${"00".repeat(8)}${nonce.toString(16).padStart(14, "0")}0000`;
}
function fee(payer: string, amount = 11_241n, tx?: Hex): RawLog {
  return transfer(payer, FEE_MANAGER_ADDRESS, amount, PATH_USD, tx);
}

const FP_WEATHER = "0102030405060708090a";
const FP_UNKNOWN = "ffeeddccbbaa99887766";

function context(overrides: Partial<MatchContext> = {}): MatchContext {
  return {
    wallets: new Map([
      [AGENT.toLowerCase(), { id: "demo-agent", label: "Demo agent", category: "agent", trackFees: false }],
      [SERVICE.toLowerCase(), { id: "weather-api-mpp", label: "Weather API", category: "data", trackFees: false }],
      [GATEWAY.toLowerCase(), { id: "tempo-gateway-mpp", label: "Tempo MPP Gateway", category: "gateway", trackFees: false }],
    ]),
    addressLabels: new Map([[PROVIDER, { label: "Image provider", category: "provider" }]]),
    fingerprintLabels: new Map([[`0x${FP_WEATHER}`, { label: "Weather via gateway", category: "provider" }]]),
    settlementContracts: new Set([ESCROW]),
    explorerBaseUrl: "https://explore.tempo.xyz/",
    ...overrides,
  };
}

describe("matchLogs", () => {
  it("turns a plain Transfer between watched parties into one row per side", () => {
    const rows = matchLogs([transfer(AGENT, SERVICE, 1_500_000n), fee(AGENT)], context());
    expect(rows).toHaveLength(2);
    const [sent, received] = rows;
    expect(sent).toMatchObject({
      agentId: "demo-agent",
      agentLabel: "Demo agent",
      agentCategory: "agent",
      kind: "payment_sent",
      counterpartyAddress: SERVICE.toLowerCase(),
      counterpartyLabel: "Weather API",
      counterpartyCategory: "data",
      amountWei: 1_500_000n,
      tokenAddress: PATH_USD,
      txHash: TX,
      sourceBlock: 100n,
      methodologyVersion: "v0.1",
      routedToAddress: "",
      routedToLabel: "",
      routedFingerprint: null,
      explorerUrl: `https://explore.tempo.xyz/tx/${TX}`,
    });
    expect(sent!.ts.toISOString()).toBe(new Date(1_790_000_000_000).toISOString());
    expect(received).toMatchObject({
      agentId: "weather-api-mpp",
      kind: "payment_received",
      counterpartyAddress: AGENT.toLowerCase(),
      counterpartyLabel: "Demo agent",
      logIndex: sent!.logIndex,
    });
  });

  it("counts a transferWithMemo (Transfer + TransferWithMemo) as one payment at the Transfer's log index", () => {
    const logs = memoPayment(AGENT, STRANGER, 42n, stringToHex("invoice-42", { size: 32 }));
    const rows = matchLogs(logs, context());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: "payment_sent",
      amountWei: 42n,
      logIndex: logs[0]!.logIndex,
      counterpartyLabel: "",
      counterpartyCategory: null,
      routedFingerprint: null,
    });
  });

  it("keeps two identical memo payments in one transaction as two rows", () => {
    const memo = stringToHex("x", { size: 32 });
    const logs = [...memoPayment(AGENT, STRANGER, 5n, memo), ...memoPayment(AGENT, STRANGER, 5n, memo)];
    const rows = matchLogs(logs, context());
    expect(rows.map((r) => r.logIndex)).toEqual([logs[0]!.logIndex, logs[2]!.logIndex]);
  });

  it("matches a TransferWithMemo without its Transfer on its own log index", () => {
    const log = transferWithMemo(STRANGER, AGENT, 7n, stringToHex("lonely", { size: 32 }));
    const rows = matchLogs([log], context());
    expect(rows).toEqual([expect.objectContaining({ kind: "payment_received", logIndex: log.logIndex, amountWei: 7n })]);
  });

  it("ignores transfers where no watched entity is a party", () => {
    expect(matchLogs([transfer(STRANGER, PROVIDER, 10n), fee(STRANGER)], context())).toEqual([]);
  });

  it("does not count fee transfers to the FeeManager unless the entity tracks fees", () => {
    const logs = [transfer(AGENT, STRANGER, 10n), fee(AGENT, 999n)];
    expect(matchLogs(logs, context()).map((r) => r.kind)).toEqual(["payment_sent"]);
    const tracking = context();
    (tracking.wallets as Map<string, { id: string; label: string; category: string; trackFees: boolean }>).set(AGENT.toLowerCase(), {
      id: "demo-agent",
      label: "Demo agent",
      category: "agent",
      trackFees: true,
    });
    const rows = matchLogs(logs, tracking);
    expect(rows.map((r) => [r.kind, r.amountWei, r.counterpartyAddress])).toEqual([
      ["payment_sent", 10n, STRANGER],
      ["fee_paid", 999n, FEE_MANAGER_ADDRESS],
    ]);
  });

  it("normalizes mixed-case addresses from logs and context keys", () => {
    const log = transfer(AGENT, SERVICE, 1n, ALPHA_USD);
    const upper = (h: string) => `0x${h.slice(2).toUpperCase()}`;
    const shouting = { ...log, address: upper(log.address), topics: log.topics.map(upper), txHash: upper(log.txHash) };
    const rows = matchLogs([shouting], context());
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.tokenAddress).toBe(ALPHA_USD.toLowerCase());
      expect(r.counterpartyAddress).toBe(r.agentId === "demo-agent" ? SERVICE : AGENT);
      expect(r.txHash).toBe(TX);
    }
  });

  it("Pattern A: a trusted Settlement names the provider of the gateway's payment in the same transaction", () => {
    const settleTx = ("0x" + "5e".repeat(32)) as Hex;
    const logs = [
      transfer(GATEWAY, PROVIDER, 900n, PATH_USD, settleTx),
      settlement(PROVIDER, GATEWAY, 1000n, 900n, ESCROW, settleTx),
      fee(GATEWAY, 5n, settleTx),
    ];
    const rows = matchLogs(logs, context());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      agentId: "tempo-gateway-mpp",
      kind: "payment_sent",
      counterpartyAddress: PROVIDER,
      counterpartyLabel: "Image provider",
      routedToAddress: PROVIDER,
      routedToLabel: "Image provider",
      amountWei: 900n,
    });
  });

  it("Pattern A also reads the Settlement topic0 reported for the mainnet escrow", () => {
    const s = settlement(PROVIDER, GATEWAY, 1000n, 900n);
    const mainnetShaped = { ...s, topics: [SETTLEMENT_TOPIC_MAINNET, ...s.topics.slice(1)] };
    expect(s.topics[0]).toBe(SETTLEMENT_TOPIC);
    expect(matchLogs([transfer(GATEWAY, PROVIDER, 900n), mainnetShaped], context())[0]!.routedToAddress).toBe(PROVIDER);
  });

  it("Pattern A ignores Settlement logs from contracts that are not trusted escrows", () => {
    const logs = [transfer(GATEWAY, PROVIDER, 900n), settlement(PROVIDER, GATEWAY, 1000n, 900n, STRANGER)];
    expect(matchLogs(logs, context())[0]).toMatchObject({ routedToAddress: "", routedToLabel: "" });
  });

  it("Pattern A with several Settlements picks the one whose provider received the payment", () => {
    const other = "0x2222222222222222222222222222222222222222";
    const logs = [settlement(other, GATEWAY, 1n, 1n), transfer(GATEWAY, PROVIDER, 9n), settlement(PROVIDER, GATEWAY, 9n, 9n)];
    expect(matchLogs(logs, context())[0]!.routedToAddress).toBe(PROVIDER);
  });

  it("Pattern B: gateway memos group payments by fingerprint, labelled when a label exists", () => {
    const tx1 = ("0x" + "01".repeat(32)) as Hex;
    const tx2 = ("0x" + "02".repeat(32)) as Hex;
    const tx3 = ("0x" + "03".repeat(32)) as Hex;
    const logs = [
      ...memoPayment(AGENT, GATEWAY, 100n, gatewayMemo(FP_WEATHER, 1), PATH_USD, tx1),
      ...memoPayment(AGENT, GATEWAY, 200n, gatewayMemo(FP_WEATHER, 2), PATH_USD, tx2),
      ...memoPayment(AGENT, GATEWAY, 300n, gatewayMemo(FP_UNKNOWN, 3), PATH_USD, tx3),
    ];
    const rows = matchLogs(logs, context()).filter((r) => r.agentId === "tempo-gateway-mpp");
    expect(rows.map((r) => [r.routedFingerprint, r.routedToLabel, r.routedToAddress])).toEqual([
      [`0x${FP_WEATHER}`, "Weather via gateway", ""],
      [`0x${FP_WEATHER}`, "Weather via gateway", ""],
      [`0x${FP_UNKNOWN}`, "", ""],
    ]);
  });

  it("does not read a fingerprint from memos without the gateway magic", () => {
    const logs = memoPayment(AGENT, GATEWAY, 1n, `0xef1ed71202${FP_WEATHER}${"00".repeat(17)}`);
    expect(matchLogs(logs, context()).every((r) => r.routedFingerprint === null)).toBe(true);
  });

  it("produces no row for a move between two wallets of the same entity", () => {
    const ctx = context();
    const second = "0x3333333333333333333333333333333333333333";
    (ctx.wallets as Map<string, { id: string; label: string; category: string; trackFees: boolean }>).set(second, ctx.wallets.get(AGENT.toLowerCase())!);
    expect(matchLogs([transfer(AGENT, second, 5n)], ctx)).toEqual([]);
  });

  it("skips malformed logs instead of throwing", () => {
    const good = transfer(AGENT, STRANGER, 1n);
    const nft = { ...transfer(AGENT, STRANGER, 1n), topics: [...good.topics, "0x" + "00".repeat(32)] };
    const shortData = { ...transfer(AGENT, STRANGER, 1n), data: "0x01" };
    const dirtyTopic = { ...transfer(AGENT, STRANGER, 1n), topics: [good.topics[0]!, "0x" + "ff".repeat(32), good.topics[2]!] };
    expect(matchLogs([nft, shortData, dirtyTopic], context())).toEqual([]);
  });

  it("is deterministic and rejects unknown methodology versions", () => {
    const logs = [transfer(AGENT, SERVICE, 3n), ...memoPayment(AGENT, GATEWAY, 4n, gatewayMemo(FP_WEATHER, 9))];
    expect(matchLogs(logs, context())).toEqual(matchLogs(logs, context()));
    expect(() => matchLogs(logs, context(), "v9.9")).toThrow(/unknown methodology version "v9.9"/);
  });
});
