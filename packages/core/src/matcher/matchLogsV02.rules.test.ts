import { encodeAbiParameters, encodeEventTopics, getAddress, parseAbiItem, stringToHex, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { describe, expect, it } from "vitest";
import { FEE_MANAGER_ADDRESS, SETTLEMENT_TOPIC } from "./constants.ts";
import { matchLogsV02, type V02Trace } from "./matchLogsV02.ts";
import type { MatchContext, RawLog, WatchedEntity } from "./types.ts";

// Methodology v0.2 rules that matchLogsV02.test.ts leaves open: the exact row, which transfers are noted in the trace,
// pairing conditions, which settlement leg a Settlement routes, malformed settlement logs from a trusted contract,
// labels of unlabelled providers, and case-insensitive hashes and addresses.
const settlementEvent = parseAbiItem(
  "event Settlement(bytes32 indexed sessionRef, address indexed serviceProvider, address indexed gateway, uint256 amountIn, uint256 amountOut)",
);
const PATH_USD = "0x20c0000000000000000000000000000000000000";
const ALPHA_USD = "0x20c0000000000000000000000000000000000001";
const JUNK = "0x20c00000000000000000000000000000000000ff";
const AGENT = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1";
const SERVICE = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2";
const QUIET = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb3"; // a watched service that does not track fees
const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe";
const ESCROW = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
const PROVIDER = "0x1111111111111111111111111111111111111111";
const UNLABELLED = "0x4444444444444444444444444444444444444444";
const EXCHANGE = "0x5555555555555555555555555555555555555555";
const OUTSIDER = "0x9999999999999999999999999999999999999999";
const OTHER = "0x8888888888888888888888888888888888888888";
const FP_LINKED = "0102030405060708090a";
const FP_UNLINKED_UNLABELLED = "0a0b0c0d0e0f10111213";
const FP_LINKED_TO_UNLABELLED = "2122232425262728292a";

let nextLogIndex = 0;
let nextTx = 0x1000;
const newTx = (): Hex => `0x${(nextTx++).toString(16).padStart(64, "0")}`;
const base = (tx: string) => ({
  blockNumber: 321n,
  blockHash: "0x" + "cd".repeat(32),
  blockTimestamp: 1_790_000_000,
  txHash: tx,
  txIndex: 0,
  logIndex: nextLogIndex++,
});
function transfer(tx: string, from: string, to: string, amount: bigint, token = PATH_USD): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "Transfer", args: { from: getAddress(from), to: getAddress(to) } });
  return { ...base(tx), address: token, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }], [amount]) };
}
function withMemo(tx: string, from: string, to: string, amount: bigint, memo: Hex, token = PATH_USD): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "TransferWithMemo", args: { from: getAddress(from), to: getAddress(to), memo } });
  return { ...base(tx), address: token, topics: topics as string[], data: encodeAbiParameters([{ type: "uint256" }], [amount]) };
}
function settlement(tx: string, provider: string, gateway: string, amountIn: bigint, amountOut: bigint, contract = ESCROW): RawLog {
  const topics = encodeEventTopics({
    abi: [settlementEvent],
    args: { sessionRef: stringToHex("session-9", { size: 32 }), serviceProvider: getAddress(provider), gateway: getAddress(gateway) },
  });
  return {
    ...base(tx),
    address: contract,
    topics: topics as string[],
    data: encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [amountIn, amountOut]),
  };
}
const gatewayMemo = (fingerprint: string, nonce: number): Hex => `0xef1ed71201${fingerprint}${"00".repeat(8)}${nonce.toString(16).padStart(14, "0")}0000`;
const entity = (id: string, category: string, trackFees = false): WatchedEntity => ({ id, label: `${id} label`, category, trackFees });

function context(overrides: Partial<MatchContext> = {}): MatchContext {
  return {
    wallets: new Map([
      [AGENT, entity("agent-1", "agent", true)],
      [SERVICE, entity("service-1", "service", true)],
      [QUIET, entity("quiet-1", "service", false)],
      [GATEWAY, entity("gateway-1", "gateway")],
    ]),
    addressLabels: new Map([
      [PROVIDER, { label: "Image provider", category: "provider" }],
      [EXCHANGE, { label: "Some exchange", category: "exchange" }],
      [OTHER, { label: "Other", category: null }],
    ]),
    fingerprintLabels: new Map([
      [`0x${FP_LINKED}`, { label: "Image (via gateway)", category: "provider" }],
      [`0x${FP_LINKED_TO_UNLABELLED}`, { label: "Loose (via gateway)", category: "provider" }],
    ]),
    settlementContracts: new Set([ESCROW]),
    explorerBaseUrl: "https://explore.example//",
    tokens: new Map([
      [PATH_USD, { symbol: "pathUSD", decimals: 6, currency: "USD" }],
      [ALPHA_USD, { symbol: "AlphaUSD", decimals: 6, currency: "USD" }],
    ]),
    fingerprintProviders: new Map([
      [`0x${FP_LINKED}`, PROVIDER],
      [`0x${FP_LINKED_TO_UNLABELLED}`, UNLABELLED],
    ]),
    ...overrides,
  };
}
function run(logs: RawLog[], ctx = context()) {
  const trace: V02Trace[] = [];
  const rows = matchLogsV02(logs, ctx, trace);
  return { rows, trace, notes: trace.map((t) => t.note), kinds: rows.map((r) => `${r.agentId}:${r.kind}`) };
}

describe("matchLogsV02: the row", () => {
  it("is exactly the known row for each side of a plain payment (labels from the entity, lowercase hashes, trimmed explorer base)", () => {
    const tx = "0x" + "AB".repeat(32);
    const log = { ...transfer(tx, AGENT, SERVICE, 1_234_567n, ALPHA_USD), blockTimestampMs: 1_790_000_000_456 };
    const { rows, trace } = run([log]);
    const common = {
      ts: new Date(1_790_000_000_456),
      amountWei: 1_234_567n,
      tokenAddress: ALPHA_USD,
      txHash: "0x" + "ab".repeat(32),
      logIndex: log.logIndex,
      sourceBlock: 321n,
      methodologyVersion: "v0.2",
      routedToAddress: "",
      routedToLabel: "",
      routedFingerprint: null,
      explorerUrl: `https://explore.example/tx/0x${"ab".repeat(32)}`,
      attribution: null,
      clientFingerprint: null,
      channelId: null,
    };
    expect(rows).toEqual([
      {
        ...common,
        agentId: "agent-1",
        agentLabel: "agent-1 label",
        agentCategory: "agent",
        counterpartyAddress: SERVICE,
        counterpartyLabel: "service-1 label",
        counterpartyCategory: "service",
        kind: "payment_sent",
      },
      {
        ...common,
        agentId: "service-1",
        agentLabel: "service-1 label",
        agentCategory: "service",
        counterpartyAddress: AGENT,
        counterpartyLabel: "agent-1 label",
        counterpartyCategory: "agent",
        kind: "payment_received",
      },
    ]);
    expect(trace).toEqual([]);
  });

  it("labels a counterparty from the address labels, and one nobody labelled as empty with no category", () => {
    const [toProvider] = run([transfer(newTx(), AGENT, PROVIDER, 5n)]).rows;
    expect(toProvider).toMatchObject({ counterpartyAddress: PROVIDER, counterpartyLabel: "Image provider", counterpartyCategory: "provider" });
    const [toNobody] = run([transfer(newTx(), AGENT, UNLABELLED, 5n)]).rows;
    expect(toNobody).toMatchObject({ counterpartyAddress: UNLABELLED, counterpartyLabel: "", counterpartyCategory: null });
    const [toNullCategory] = run([transfer(newTx(), AGENT, OTHER, 5n)]).rows;
    expect(toNullCategory).toMatchObject({ counterpartyLabel: "Other", counterpartyCategory: null });
  });

  it("groups logs of one transaction whatever the case of its hash", () => {
    const tx = newTx();
    const upper = "0x" + tx.slice(2).toUpperCase();
    // the fee rule needs both FeeManager transfers in one transaction: only the last is the fee
    const { rows, notes } = run([transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 10n), transfer(upper, AGENT, FEE_MANAGER_ADDRESS, 3n)]);
    expect(rows.map((r) => [r.kind, r.amountWei, r.txHash])).toEqual([["fee_paid", 3n, tx]]);
    expect(notes).toEqual(["fee_amm", "fee"]);
  });

  it("orders rows by log index, sender side first, whether or not a payment was paired with a memo", () => {
    const tx = newTx();
    const plain = transfer(tx, SERVICE, AGENT, 1n);
    const paired = [transfer(tx, AGENT, SERVICE, 2n), withMemo(tx, AGENT, SERVICE, 2n, gatewayMemo(FP_LINKED, 1))];
    const later = transfer(tx, AGENT, SERVICE, 3n);
    const { rows } = run([plain, ...paired, later]);
    expect(rows.map((r) => [r.agentId, r.kind, r.amountWei, r.logIndex])).toEqual([
      ["service-1", "payment_sent", 1n, plain.logIndex],
      ["agent-1", "payment_received", 1n, plain.logIndex],
      ["agent-1", "payment_sent", 2n, paired[0]!.logIndex],
      ["service-1", "payment_received", 2n, paired[0]!.logIndex],
      ["agent-1", "payment_sent", 3n, later.logIndex],
      ["service-1", "payment_received", 3n, later.logIndex],
    ]);
  });
});

describe("matchLogsV02: the trace notes only transfers that touch a watched wallet", () => {
  it("not_allowlisted_token on either side, nothing for strangers", () => {
    const tx = newTx();
    const { rows, trace } = run([transfer(tx, AGENT, OUTSIDER, 1n, JUNK), transfer(tx, OUTSIDER, AGENT, 1n, JUNK), transfer(tx, OUTSIDER, OTHER, 1n, JUNK)]);
    expect(rows).toEqual([]);
    expect(trace.map((t) => t.note)).toEqual(["not_allowlisted_token", "not_allowlisted_token"]);
    expect(trace[0]).toEqual({ txHash: tx, logIndex: expect.any(Number), note: "not_allowlisted_token" });
  });

  it("solo_memo for a memo sent by a watched wallet or received by one, nothing for strangers", () => {
    const tx = newTx();
    const memo = stringToHex("lonely", { size: 32 });
    const logs = [withMemo(tx, AGENT, OUTSIDER, 1n, memo), withMemo(tx, OUTSIDER, AGENT, 1n, memo), withMemo(tx, OUTSIDER, OTHER, 1n, memo)];
    const { rows, trace } = run(logs);
    expect(rows).toEqual([]);
    expect(trace).toEqual([
      { txHash: tx, logIndex: logs[0]!.logIndex, note: "solo_memo" },
      { txHash: tx, logIndex: logs[1]!.logIndex, note: "solo_memo" },
    ]);
  });

  it("internal, funding and settlement_leg", () => {
    const ctx = context();
    (ctx.wallets as Map<string, WatchedEntity>).set(OTHER, entity("agent-1", "agent"));
    expect(run([transfer(newTx(), AGENT, OTHER, 1n)], ctx).notes).toEqual(["internal"]);
    expect(run([transfer(newTx(), EXCHANGE, AGENT, 1n)]).notes).toEqual(["funding"]);
    const tx = newTx();
    expect(run([transfer(tx, GATEWAY, PROVIDER, 9n), settlement(tx, PROVIDER, GATEWAY, 10n, 9n)]).notes).toEqual(["settlement_leg"]);
  });

  it("skips a log that is no transfer of a known shape (another event, an anonymous log) without a note", () => {
    const tx = newTx();
    const approval = {
      ...base(tx),
      address: PATH_USD,
      topics: [
        "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925",
        "0x" + "0".repeat(24) + AGENT.slice(2),
        "0x" + "0".repeat(24) + SERVICE.slice(2),
      ],
      data: "0x" + "0".repeat(63) + "1",
    };
    const anonymous = { ...base(tx), address: PATH_USD, topics: [], data: "0x" };
    const pay = transfer(tx, AGENT, SERVICE, 5n);
    const { kinds, notes } = run([approval, anonymous, pay]);
    expect(kinds).toEqual(["agent-1:payment_sent", "service-1:payment_received"]);
    expect(notes).toEqual([]);
  });

  it("notes nothing about strangers' transfers in a transaction that also pays a watched wallet", () => {
    const tx = newTx();
    const { kinds, notes } = run([transfer(tx, AGENT, SERVICE, 5n), transfer(tx, OUTSIDER, EXCHANGE, 9n), transfer(tx, OUTSIDER, FEE_MANAGER_ADDRESS, 1n)]);
    expect(kinds).toEqual(["agent-1:payment_sent", "service-1:payment_received"]);
    expect(notes).toEqual([]);
  });

  it("works without a trace", () => {
    expect(matchLogsV02([withMemo(newTx(), AGENT, OUTSIDER, 1n, stringToHex("x", { size: 32 }))], context())).toEqual([]);
  });
});

describe("matchLogsV02: pairing a TransferWithMemo with its Transfer", () => {
  const memo = gatewayMemo(FP_LINKED, 7);
  it.each([
    ["another token", () => transfer("T", AGENT, SERVICE, 5n, ALPHA_USD)],
    ["another sender", () => transfer("T", QUIET, SERVICE, 5n)],
    ["another recipient", () => transfer("T", AGENT, QUIET, 5n)],
    ["another amount", () => transfer("T", AGENT, SERVICE, 6n)],
  ])("a Transfer with %s is no partner: the memo is dropped, the Transfer is a plain payment", (_what, make) => {
    const tx = newTx();
    const t = { ...make(), txHash: tx };
    const m = withMemo(tx, AGENT, SERVICE, 5n, memo);
    const { rows, notes } = run([t, m]);
    expect(notes).toEqual(["solo_memo"]);
    expect(rows.every((r) => r.routedFingerprint === null && r.logIndex === t.logIndex)).toBe(true);
    expect(rows.length).toBeGreaterThan(0);
  });

  it("the partner comes before the memo; one Transfer pairs with one memo only; the nearest earlier Transfer is taken", () => {
    const tx = newTx();
    const memoFirst = withMemo(tx, AGENT, SERVICE, 5n, memo);
    const t1 = transfer(tx, AGENT, SERVICE, 5n);
    const m1 = withMemo(tx, AGENT, SERVICE, 5n, memo);
    const m2 = withMemo(tx, AGENT, SERVICE, 5n, memo);
    const { rows, trace } = run([memoFirst, t1, m1, m2]);
    expect(trace).toEqual([
      { txHash: tx, logIndex: memoFirst.logIndex, note: "solo_memo" },
      { txHash: tx, logIndex: m2.logIndex, note: "solo_memo" },
    ]);
    expect(rows.map((r) => [r.kind, r.logIndex, r.routedFingerprint])).toEqual([
      ["payment_sent", t1.logIndex, `0x${FP_LINKED}`],
      ["payment_received", t1.logIndex, `0x${FP_LINKED}`],
    ]);

    const tx2 = newTx();
    const a = transfer(tx2, AGENT, SERVICE, 5n);
    const b = transfer(tx2, AGENT, SERVICE, 5n);
    const m = withMemo(tx2, AGENT, SERVICE, 5n, memo);
    const r2 = run([a, b, m]).rows;
    expect(r2.filter((r) => r.routedFingerprint !== null).map((r) => r.logIndex)).toEqual([b.logIndex, b.logIndex]);
    expect(r2.filter((r) => r.routedFingerprint === null).map((r) => r.logIndex)).toEqual([a.logIndex, a.logIndex]);
  });
});

describe("matchLogsV02: routing by fingerprint (Pattern B)", () => {
  it("a provider link names the provider by its label, else by the fingerprint's label; no label at all is empty", () => {
    const linked = run([transfer("0x01", AGENT, GATEWAY, 4n), withMemo("0x01", AGENT, GATEWAY, 4n, gatewayMemo(FP_LINKED, 1))]).rows[0];
    expect(linked).toMatchObject({ routedToAddress: PROVIDER, routedToLabel: "Image provider", routedFingerprint: `0x${FP_LINKED}` });
    const toUnlabelled = run([transfer("0x02", AGENT, GATEWAY, 4n), withMemo("0x02", AGENT, GATEWAY, 4n, gatewayMemo(FP_LINKED_TO_UNLABELLED, 1))]).rows[0];
    expect(toUnlabelled).toMatchObject({
      routedToAddress: UNLABELLED,
      routedToLabel: "Loose (via gateway)",
      routedFingerprint: `0x${FP_LINKED_TO_UNLABELLED}`,
    });
    const nothing = run([transfer("0x03", AGENT, GATEWAY, 4n), withMemo("0x03", AGENT, GATEWAY, 4n, gatewayMemo(FP_UNLINKED_UNLABELLED, 1))]).rows[0];
    expect(nothing).toMatchObject({ routedToAddress: "", routedToLabel: "", routedFingerprint: `0x${FP_UNLINKED_UNLABELLED}` });
    // a watched entity linked as provider is labelled by the entity
    const ctx = context({ fingerprintProviders: new Map([[`0x${FP_LINKED}`, SERVICE]]) });
    const toEntity = run([transfer("0x04", AGENT, GATEWAY, 4n), withMemo("0x04", AGENT, GATEWAY, 4n, gatewayMemo(FP_LINKED, 1))], ctx).rows[0];
    expect(toEntity).toMatchObject({ routedToAddress: SERVICE, routedToLabel: "service-1 label" });
    // without any provider links the fingerprint label is used
    const noLinks = run(
      [transfer("0x05", AGENT, GATEWAY, 4n), withMemo("0x05", AGENT, GATEWAY, 4n, gatewayMemo(FP_LINKED, 1))],
      context({ fingerprintProviders: undefined }),
    ).rows[0];
    expect(noLinks).toMatchObject({ routedToAddress: "", routedToLabel: "Image (via gateway)", routedFingerprint: `0x${FP_LINKED}` });
  });
});

describe("matchLogsV02: funding (rule 4)", () => {
  it("an exchange label is a funding source; a watched entity's own category wins over an address label", () => {
    expect(run([transfer(newTx(), AGENT, EXCHANGE, 8n)]).kinds).toEqual(["agent-1:funding_sent"]);
    const ctx = context({ addressLabels: new Map([[SERVICE, { label: "looks like a faucet", category: "faucet" }]]) });
    expect(run([transfer(newTx(), AGENT, SERVICE, 8n)], ctx).kinds).toEqual(["agent-1:payment_sent", "service-1:payment_received"]);
  });
});

describe("matchLogsV02: fees (rule 5)", () => {
  it("the fee of a watched entity that does not track fees is no row, yet noted", () => {
    const { rows, notes } = run([transfer(newTx(), QUIET, FEE_MANAGER_ADDRESS, 77n)]);
    expect(rows).toEqual([]);
    expect(notes).toEqual(["fee"]);
    expect(run([transfer(newTx(), AGENT, FEE_MANAGER_ADDRESS, 77n)]).rows).toEqual([
      expect.objectContaining({ kind: "fee_paid", agentId: "agent-1", counterpartyAddress: FEE_MANAGER_ADDRESS, amountWei: 77n, routedToAddress: "" }),
    ]);
  });
});

describe("matchLogsV02: the fee is the last transfer to the FeeManager, wherever the other payments are", () => {
  it("a fee logged before the transaction's payment is still the fee", () => {
    const tx = newTx();
    const fee = transfer(tx, AGENT, FEE_MANAGER_ADDRESS, 3n);
    const pay = transfer(tx, AGENT, SERVICE, 5n);
    const { rows, notes } = run([fee, pay]);
    expect(rows.map((r) => [r.agentId, r.kind, r.amountWei])).toEqual([
      ["agent-1", "fee_paid", 3n],
      ["agent-1", "payment_sent", 5n],
      ["service-1", "payment_received", 5n],
    ]);
    expect(notes).toEqual(["fee"]);
  });
});

describe("matchLogsV02: a transfer from the FeeManager with no fee in its transaction", () => {
  it("is fee-AMM flow, whatever its log index (no fee was paid, so none can match it)", () => {
    for (const logIndex of [0, 1, 2]) {
      const { rows, notes } = run([{ ...transfer(newTx(), FEE_MANAGER_ADDRESS, AGENT, 5n), logIndex }]);
      expect(rows, String(logIndex)).toEqual([]);
      expect(notes, String(logIndex)).toEqual(["fee_amm"]);
    }
  });
});

describe("matchLogsV02: a TransferWithMemo never pairs with another TransferWithMemo", () => {
  it("two identical memos without a Transfer are both solo", () => {
    const tx = newTx();
    const memo = gatewayMemo(FP_LINKED, 4);
    const { rows, notes } = run([withMemo(tx, AGENT, SERVICE, 5n, memo), withMemo(tx, AGENT, SERVICE, 5n, memo)]);
    expect(rows).toEqual([]);
    expect(notes).toEqual(["solo_memo", "solo_memo"]);
  });
});

describe("matchLogsV02: settlements (rules 6 and 7)", () => {
  it("routes the gateway's leg to the provider, to a watched provider as settlement_received, with the leg's memo fingerprint", () => {
    const tx = newTx();
    const logs = [transfer(tx, GATEWAY, SERVICE, 9n), withMemo(tx, GATEWAY, SERVICE, 9n, gatewayMemo(FP_LINKED, 3)), settlement(tx, SERVICE, GATEWAY, 10n, 9n)];
    const { rows } = run(logs);
    expect(rows.map((r) => [r.agentId, r.kind, r.counterpartyAddress, r.routedToAddress, r.routedToLabel, r.routedFingerprint])).toEqual([
      ["gateway-1", "settlement_sent", SERVICE, SERVICE, "service-1 label", `0x${FP_LINKED}`],
      ["service-1", "settlement_received", GATEWAY, SERVICE, "service-1 label", `0x${FP_LINKED}`],
    ]);
  });

  it("a provider nobody labelled is routed with an empty label", () => {
    const tx = newTx();
    expect(run([transfer(tx, GATEWAY, UNLABELLED, 9n), settlement(tx, UNLABELLED, GATEWAY, 9n, 9n)]).rows).toEqual([
      expect.objectContaining({ kind: "settlement_sent", routedToAddress: UNLABELLED, routedToLabel: "", routedFingerprint: null }),
    ]);
  });

  it("a leg to anyone but the settled provider is not settled, and each settlement settles one leg", () => {
    const tx = newTx();
    expect(run([transfer(tx, GATEWAY, OTHER, 9n), settlement(tx, PROVIDER, GATEWAY, 9n, 9n)]).kinds).toEqual(["gateway-1:payment_sent"]);
    const tx2 = newTx();
    const twice = [
      transfer(tx2, GATEWAY, PROVIDER, 9n),
      transfer(tx2, GATEWAY, PROVIDER, 9n),
      settlement(tx2, PROVIDER, GATEWAY, 9n, 9n),
      settlement(tx2, PROVIDER, GATEWAY, 9n, 9n),
    ];
    expect(run(twice).kinds).toEqual(["gateway-1:settlement_sent", "gateway-1:settlement_sent"]);
    const tx3 = newTx();
    const once = [transfer(tx3, GATEWAY, PROVIDER, 9n), transfer(tx3, GATEWAY, PROVIDER, 9n), settlement(tx3, PROVIDER, GATEWAY, 9n, 9n)];
    expect(run(once).kinds).toEqual(["gateway-1:settlement_sent", "gateway-1:payment_sent"]);
  });

  it("reads a trusted contract whatever the case of its address and of the declared topic0", () => {
    const tx = newTx();
    const s = { ...settlement(tx, PROVIDER, GATEWAY, 9n, 9n), address: getAddress(ESCROW) };
    expect(run([transfer(tx, GATEWAY, PROVIDER, 9n), s]).kinds).toEqual(["gateway-1:settlement_sent"]);
    const declared = context({
      settlementEvents: new Map([[ESCROW, { topic0: SETTLEMENT_TOPIC.toUpperCase().replace("0X", "0x"), providerTopic: 2, verified: true }]]),
    });
    const tx2 = newTx();
    const upperTopics = settlement(tx2, PROVIDER, GATEWAY, 9n, 9n);
    upperTopics.topics = upperTopics.topics.map((t) => "0x" + t.slice(2).toUpperCase());
    expect(run([transfer(tx2, GATEWAY, PROVIDER, 9n), upperTopics], declared).rows).toEqual([
      expect.objectContaining({ kind: "settlement_sent", routedToAddress: PROVIDER }),
    ]);
  });

  it("ignores a malformed settlement log from the trusted contract", () => {
    const malformed = (change: (log: RawLog) => RawLog) => {
      const tx = newTx();
      return run([transfer(tx, GATEWAY, PROVIDER, 9n), change(settlement(tx, PROVIDER, GATEWAY, 9n, 9n))]).kinds;
    };
    const word = (n: string) => "0x" + n.padStart(64, "0");
    expect(malformed((l) => l)).toEqual(["gateway-1:settlement_sent"]); // the well-formed control
    expect(malformed((l) => ({ ...l, topics: l.topics.slice(0, 3) }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [...l.topics, word("1")] }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [l.topics[0]!, l.topics[1]!.slice(0, 65), l.topics[2]!, l.topics[3]!] }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [l.topics[0]!, l.topics[1]! + "0", l.topics[2]!, l.topics[3]!] }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [l.topics[0]!, "x" + l.topics[1]!, l.topics[2]!, l.topics[3]!] }))).toEqual(["gateway-1:payment_sent"]);
    // provider or gateway topic not a padded address (a high byte set), or with trailing junk
    const high = (t: string) => "0x1" + t.slice(3);
    expect(malformed((l) => ({ ...l, topics: [l.topics[0]!, l.topics[1]!, high(l.topics[2]!), l.topics[3]!] }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [l.topics[0]!, l.topics[1]!, l.topics[2]!, high(l.topics[3]!)] }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [l.topics[0]!, l.topics[1]!, l.topics[2]! + "0", l.topics[3]!] }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [l.topics[0]!, l.topics[1]!, "x" + l.topics[2]!, l.topics[3]!] }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [l.topics[0]!, l.topics[1]!, l.topics[2]!.slice(0, 65) + "g", l.topics[3]!] }))).toEqual([
      "gateway-1:payment_sent",
    ]);
    // data: not exactly two hex words
    expect(malformed((l) => ({ ...l, data: l.data.slice(0, 66) }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, data: l.data + "00" }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, data: "x" + l.data }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, data: l.data.slice(0, 129) + "g" }))).toEqual(["gateway-1:payment_sent"]);
    expect(malformed((l) => ({ ...l, topics: [] }))).toEqual(["gateway-1:payment_sent"]);
  });

  it("reads the provider and gateway topics case-insensitively and amountOut from the second data word", () => {
    const tx = newTx();
    const s = settlement(tx, PROVIDER, GATEWAY, 9n, 9n);
    s.topics = [s.topics[0]!, s.topics[1]!, s.topics[2]!, "0x" + s.topics[3]!.slice(2).toUpperCase()];
    expect(run([transfer(tx, GATEWAY, PROVIDER, 9n), s]).kinds).toEqual(["gateway-1:settlement_sent"]);
    const tx2 = newTx();
    const p = settlement(tx2, GATEWAY, GATEWAY, 9n, 9n);
    p.topics = [p.topics[0]!, p.topics[1]!, "0x" + "0".repeat(24) + "AbCdEf0000000000000000000000000000000001", p.topics[3]!];
    const providerMixed = "0xabcdef0000000000000000000000000000000001";
    expect(run([transfer(tx2, GATEWAY, providerMixed, 9n), p]).rows).toEqual([
      expect.objectContaining({ kind: "settlement_sent", routedToAddress: providerMixed }),
    ]);
    const tx3 = newTx();
    expect(run([transfer(tx3, GATEWAY, PROVIDER, 10n), settlement(tx3, PROVIDER, GATEWAY, 10n, 9n)]).kinds).toEqual(["gateway-1:payment_sent"]);
  });
});

describe("matchLogsV02: what a trusted settlement contract's log must be to settle a leg", () => {
  it("another event of the same shape (other topic0) settles nothing", () => {
    const tx = newTx();
    const s = settlement(tx, PROVIDER, GATEWAY, 9n, 9n);
    s.topics = ["0x" + "5e".repeat(32), s.topics[1]!, s.topics[2]!, s.topics[3]!];
    expect(run([transfer(tx, GATEWAY, PROVIDER, 9n), s]).kinds).toEqual(["gateway-1:payment_sent"]);
  });
  it("data with junk before its 0x settles nothing, even when the words read from the wrong offset would match the leg", () => {
    const tx = newTx();
    const s = settlement(tx, PROVIDER, GATEWAY, 9n, 9n);
    // read two characters late, this data's "second word" is 9: only the anchored shape check refuses it
    s.data = "zz" + encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [0n, 9n << 8n]);
    expect(run([transfer(tx, GATEWAY, PROVIDER, 9n), s]).kinds).toEqual(["gateway-1:payment_sent"]);
  });
});
