import { readFileSync } from "node:fs";
import path from "node:path";
import { computeRollups, matchLogs, mppFingerprint, selectWatchedLogs, type MatchContext, type RawLog } from "@agent-ledger/core";
import { createPgPool, loadMatchContext } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import { concat, encodeAbiParameters, encodeEventTopics, getAddress, keccak256, parseAbiItem, slice, toBytes, type AbiEvent, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPLORER, loadRegistry } from "./helpers.ts";

// The generated registry/mainnet.json, loaded by the real loader, matched under v0.3 with synthetic logs of exact
// mainnet shape: USDC.e charges to the Tempo gateway's recipient carrying a directory service's serverId, a charge to a
// service known only by its serverId, a realm several services share, a junk token, and sessions on both escrows with
// their real topic0s and data layouts. The rows and totals are what a person reading the chain would expect.

const ROOT = path.resolve(import.meta.dirname, "../../..");
const USDC_E = "0x20c000000000000000000000b9537d11c60e8b50"; // tokens-4217.json
const PATH_USD = "0x20c0000000000000000000000000000000000000";
const JUNK = "0x20c00000000000000000000000000000000000ff"; // not in the token list
const GATEWAY = "0xca4e835f803cb0b7c428222b3a3b98518d4779fe"; // the verified Tempo MPP gateway recipient
const LEGACY_ESCROW = "0x33b901018174ddabe4841042ab76ba85d4e24f25";
const PRECOMPILE = "0x4d50500000000000000000000000000000000000";
const AGENT = "0x1111111111111111111111111111111111111111"; // payers nobody registered
const AGENT_2 = "0x2222222222222222222222222222222222222222";
const SOMEONE = "0x3333333333333333333333333333333333333333"; // a recipient nobody registered
const PAYEE = "0x4444444444444444444444444444444444444444"; // session payees nobody registered
const PAYEE_2 = "0x5555555555555555555555555555555555555555";

let txCounter = 0x9000;
let logIndex = 0;
const newTx = (): Hex => `0x${(txCounter++).toString(16).padStart(64, "0")}`;
const at = (tx: string): Omit<RawLog, "address" | "topics" | "data"> => ({
  blockNumber: 5_000_000n,
  blockHash: `0x${"ab".repeat(32)}`,
  blockTimestamp: 1_790_000_000,
  blockTimestampMs: 1_790_000_000_000,
  txHash: tx,
  txIndex: 0,
  logIndex: logIndex++,
});
const word = (v: bigint) => encodeAbiParameters([{ type: "uint256" }], [v]);
function transfer(tx: string, token: string, from: string, to: string, amount: bigint): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "Transfer", args: { from: getAddress(from), to: getAddress(to) } });
  return { ...at(tx), address: token, topics: topics as string[], data: word(amount) };
}
function withMemo(tx: string, token: string, from: string, to: string, amount: bigint, memo: Hex): RawLog {
  const topics = encodeEventTopics({ abi: Abis.tip20, eventName: "TransferWithMemo", args: { from: getAddress(from), to: getAddress(to), memo } });
  return { ...at(tx), address: token, topics: topics as string[], data: word(amount) };
}
/** The MPP attribution memo: tag, version 1, serverId = keccak(host)[0..9], clientId, nonce (mppx Attribution). */
const memo = (host: string, clientId: string): Hex =>
  concat([
    slice(keccak256(toBytes("mpp")), 0, 4),
    "0x01",
    mppFingerprint(host) as Hex,
    mppFingerprint(clientId) as Hex,
    slice(keccak256(toBytes(`${host}:${logIndex}`)), 0, 7),
  ]);
const charge = (token: string, from: string, to: string, amount: bigint, host: string, client: string) => {
  const tx = newTx();
  return [transfer(tx, token, from, to, amount), withMemo(tx, token, from, to, amount, memo(host, client))];
};

const LEGACY = {
  ChannelOpened:
    "event ChannelOpened(bytes32 indexed channelId, address indexed payer, address indexed payee, address token, address authorizedSigner, bytes32 salt, uint256 deposit)",
  Settled:
    "event Settled(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 cumulativeAmount, uint256 deltaPaid, uint256 newSettled)",
  ChannelClosed:
    "event ChannelClosed(bytes32 indexed channelId, address indexed payer, address indexed payee, uint256 settledToPayee, uint256 refundedToPayer)",
};
const PRECOMPILE_EVENTS = {
  ChannelOpened:
    "event ChannelOpened(bytes32 indexed channelId, address indexed payer, address indexed payee, address operator, address token, address authorizedSigner, bytes32 salt, bytes32 expiringNonceHash, uint96 deposit)",
  Settled:
    "event Settled(bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 cumulativeAmount, uint96 deltaPaid, uint96 newSettled)",
  ChannelClosed: "event ChannelClosed(bytes32 indexed channelId, address indexed payer, address indexed payee, uint96 settledToPayee, uint96 refundedToPayer)",
};
function escrowLog(tx: string, escrow: string, signature: string, channel: Hex, payer: string, payee: string, values: readonly unknown[]): RawLog {
  const event = parseAbiItem(signature) as AbiEvent;
  const topics = encodeEventTopics({ abi: [event], args: { channelId: channel, payer: getAddress(payer), payee: getAddress(payee) } } as never);
  return {
    ...at(tx),
    address: escrow,
    topics: topics as string[],
    data: encodeAbiParameters(
      event.inputs.filter((i) => !i.indexed),
      values as never,
    ),
  };
}
const SALT = `0x${"5a".repeat(32)}` as Hex;
const CH_LEGACY = `0x${"c1".repeat(32)}` as Hex;
const CH_PRECOMPILE = `0x${"c2".repeat(32)}` as Hex;

/** Legacy escrow: open 5.0, settle 1.0, close at 1.5 (pays 0.5, refunds 3.5). Precompile: open 1.0, settle 0.2, close with no new voucher. */
function sessions(): RawLog[] {
  const [t1, t2, t3, t4, t5, t6] = [newTx(), newTx(), newTx(), newTx(), newTx(), newTx()];
  return [
    transfer(t1, USDC_E, AGENT, LEGACY_ESCROW, 5_000_000n),
    escrowLog(t1, LEGACY_ESCROW, LEGACY.ChannelOpened, CH_LEGACY, AGENT, PAYEE, [getAddress(USDC_E), getAddress(AGENT), SALT, 5_000_000n]),
    transfer(t2, USDC_E, LEGACY_ESCROW, PAYEE, 1_000_000n),
    escrowLog(t2, LEGACY_ESCROW, LEGACY.Settled, CH_LEGACY, AGENT, PAYEE, [1_000_000n, 1_000_000n, 1_000_000n]),
    transfer(t3, USDC_E, LEGACY_ESCROW, PAYEE, 500_000n),
    transfer(t3, USDC_E, LEGACY_ESCROW, AGENT, 3_500_000n),
    escrowLog(t3, LEGACY_ESCROW, LEGACY.ChannelClosed, CH_LEGACY, AGENT, PAYEE, [1_500_000n, 3_500_000n]),
    transfer(t4, USDC_E, AGENT_2, PRECOMPILE, 1_000_000n),
    escrowLog(t4, PRECOMPILE, PRECOMPILE_EVENTS.ChannelOpened, CH_PRECOMPILE, AGENT_2, PAYEE_2, [
      getAddress("0x0000000000000000000000000000000000000000"),
      getAddress(USDC_E),
      getAddress(AGENT_2),
      SALT,
      `0x${"6b".repeat(32)}`,
      1_000_000n,
    ]),
    transfer(t5, USDC_E, PRECOMPILE, PAYEE_2, 200_000n),
    escrowLog(t5, PRECOMPILE, PRECOMPILE_EVENTS.Settled, CH_PRECOMPILE, AGENT_2, PAYEE_2, [200_000n, 200_000n, 200_000n]),
    transfer(t6, USDC_E, PRECOMPILE, AGENT_2, 800_000n),
    escrowLog(t6, PRECOMPILE, PRECOMPILE_EVENTS.ChannelClosed, CH_PRECOMPILE, AGENT_2, PAYEE_2, [200_000n, 800_000n]),
  ];
}

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let context: MatchContext;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadRegistry(db.url, JSON.parse(readFileSync(path.join(ROOT, "registry/mainnet.json"), "utf8")), "registry:mainnet.json");
  const pool = createPgPool(db.url, { max: 1 });
  try {
    context = await loadMatchContext(pool, EXPLORER);
  } finally {
    await pool.end();
  }
});
afterAll(async () => {
  await db?.drop();
});

/** What the indexer does with a fetched range: keep the watched transactions, then match them. */
function index(logs: RawLog[]) {
  const serverIds = context.serverIds!;
  const kept = selectWatchedLogs(
    logs,
    (a) => context.wallets.has(a),
    (id) => serverIds.has(id),
  );
  return matchLogs(kept, context, "v0.3");
}

describe("registry/mainnet.json under methodology v0.3", () => {
  it("loads every directory service's server ids, both escrows and the gateway", () => {
    expect(context.serverIds!.get(mppFingerprint("fal.mpp.tempo.xyz"))).toMatchObject({ entity: { id: "fal-mpp", label: "fal.ai" }, source: "host" });
    expect(context.escrows!.get(LEGACY_ESCROW)).toMatchObject({ abi: "legacy", entity: { id: "mpp-session-escrow", category: "escrow" } });
    expect(context.escrows!.get(PRECOMPILE)).toMatchObject({ abi: "precompile", entity: { id: "mpp-channel-reserve", category: "escrow" } });
    expect(context.wallets.get(GATEWAY)).toMatchObject({ id: "tempo-gateway-mpp", category: "gateway" });
    expect(context.tokens!.get(USDC_E)).toMatchObject({ symbol: "USDC.e", decimals: 6 });
  });

  it("charges are the named services', sessions count their payouts once, nothing else is activity", () => {
    const logs = [
      ...charge(USDC_E, AGENT, GATEWAY, 1_000_000n, "fal.mpp.tempo.xyz", "my-agent"), // through the gateway, by host
      ...charge(USDC_E, AGENT_2, GATEWAY, 250_000n, "mpp.tempo.xyz", "other-agent"), // the gateway's shared realm: no one service
      ...charge(PATH_USD, AGENT, SOMEONE, 70_000n, "anthropic.mpp.tempo.xyz", "my-agent"), // a service known only by its server id
      ...charge(JUNK, AGENT, GATEWAY, 9_999_999n, "fal.mpp.tempo.xyz", "my-agent"), // a token outside the list: nothing
      transfer(newTx(), USDC_E, AGENT, SOMEONE, 42n), // unrelated: nothing
      ...sessions(),
    ];
    const rows = index(logs);
    const view = rows.map((r) => [r.agentId, r.kind, r.counterpartyAddress, r.amountWei, r.attribution, r.routedToLabel]);
    expect(view).toEqual([
      ["fal-mpp", "payment_received", AGENT, 1_000_000n, "server_id_host", "fal.ai"],
      ["tempo-gateway-mpp", "payment_received", AGENT_2, 250_000n, "recipient_wallet", "Tempo MPP gateway (mpp.tempo.xyz)"],
      ["anthropic-mpp", "payment_received", AGENT, 70_000n, "server_id_host", "Anthropic"],
      ["mpp-session-escrow", "funding_received", AGENT, 5_000_000n, null, ""],
      ["mpp-session-escrow", "settlement_sent", PAYEE, 1_000_000n, "session_escrow", ""],
      ["mpp-session-escrow", "settlement_sent", PAYEE, 500_000n, "session_escrow", ""],
      ["mpp-session-escrow", "funding_sent", AGENT, 3_500_000n, null, ""],
      ["mpp-channel-reserve", "funding_received", AGENT_2, 1_000_000n, null, ""],
      ["mpp-channel-reserve", "settlement_sent", PAYEE_2, 200_000n, "session_escrow", ""],
      ["mpp-channel-reserve", "funding_sent", AGENT_2, 800_000n, null, ""],
    ]);
    expect(rows.find((r) => r.agentId === "fal-mpp")).toMatchObject({
      clientFingerprint: mppFingerprint("my-agent"),
      routedFingerprint: mppFingerprint("fal.mpp.tempo.xyz"),
    });
    expect(rows.filter((r) => r.agentId.startsWith("mpp-")).every((r) => r.channelId === CH_LEGACY || r.channelId === CH_PRECOMPILE)).toBe(true);

    const totals = computeRollups(rows);
    // activity: the three charges, per token; the sessions' payouts are seen from the escrows only (nobody registered)
    expect(totals.hourly.ledgerTokens.map((t) => [t.tokenAddress, t.paymentsCount, t.amountSumWei]).sort()).toEqual([
      [PATH_USD, 1, 70_000n],
      [USDC_E, 2, 1_250_000n],
    ]);
    // providers: each charge's serverId group, each session payee by address, each payout once; never a payer
    const providers = Object.fromEntries(totals.providerTotals.map((p) => [p.providerKey, [p.pattern, p.paymentsCount, p.amountSumWei]]));
    expect(providers).toEqual({
      [mppFingerprint("fal.mpp.tempo.xyz")]: ["fingerprint", 1, 1_000_000n],
      [mppFingerprint("mpp.tempo.xyz")]: ["fingerprint", 1, 250_000n],
      [mppFingerprint("anthropic.mpp.tempo.xyz")]: ["fingerprint", 1, 70_000n],
      [PAYEE]: ["address", 2, 1_500_000n],
      [PAYEE_2]: ["address", 1, 200_000n],
    });
    for (const payer of [AGENT, AGENT_2]) expect(Object.keys(providers)).not.toContain(payer);
    // the agents' entity view: nothing (they are not registered), the escrows have no activity
    expect(totals.entityTotals.filter((e) => e.entityId.startsWith("mpp-")).every((e) => e.sentCount + e.receivedCount === 0)).toBe(true);
  });
});
