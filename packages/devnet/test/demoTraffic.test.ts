import { keccak256, parseEventLogs, slice, stringToHex, type Hash, type Hex, type Log } from "viem";
import { Abis } from "viem/tempo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevnetClient, type DevnetClient } from "../src/chain.ts";
import { ALPHA_USD, FEE_MANAGER, PATH_USD } from "../src/constants.ts";
import { abi as gatewayEscrowAbi } from "../src/contracts/GatewayEscrow.artifact.ts";
import { abi as sessionEscrowAbi } from "../src/contracts/StreamChannelEscrow.artifact.ts";
import { createSenderPool } from "../src/createSenderPool.ts";
import { demoKeys } from "../src/demo/demoKeys.ts";
import { setupMppDemo } from "../src/demo/setupMppDemo.ts";
import { startDemoTraffic, type DemoEvent, type DemoTrafficStats } from "../src/demo/startDemoTraffic.ts";
import { startAnvil, type AnvilInstance } from "../src/startAnvil.ts";

// The running demo (`npm start`): MPP traffic through the official mppx servers and clients on a devnet — charges,
// gateway charges, split charges and sessions through the session escrow — plus the gateway's payouts to its
// providers and agent → agent transfers. Everything is checked on chain, from the logs.

/** Seeded PRNG (mulberry32) so agents, services and session lengths are reproducible. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
/** keccak256(utf8(s))[0..9], as mppx's attribution memo fingerprints a realm or a client id. */
const fp = (s: string) => slice(keccak256(stringToHex(s)), 0, 10);

const keys = demoKeys();
const lc = (a: string): Hex => a.toLowerCase() as Hex;
let anvil: AnvilInstance;
let client: DevnetClient;
let stats: DemoTrafficStats;
const events: DemoEvent[] = [];
let logs: Log[];

beforeAll(async () => {
  anvil = await startAnvil({ port: 0 });
  client = createDevnetClient({ url: anvil.url });
  const traffic = await startDemoTraffic({ rpcUrl: anvil.url, txPerSecond: 20, log: (e) => events.push(e), random: seeded(42) });
  // at least 8 cycles of the pattern, then until every kind of step happened (session lengths and empty sessions are random)
  const started = Date.now();
  while (Date.now() - started < 8_000 || (Object.values(traffic.stats().byKind).some((n) => n === 0) && Date.now() - started < 40_000))
    await new Promise((r) => setTimeout(r, 250));
  await traffic.stop(); // also closes the sessions still open
  stats = traffic.stats();
  logs = await client.getLogs({ fromBlock: 0n, toBlock: "latest" });
}, 120_000);
afterAll(async () => {
  await anvil?.stop();
});

const txEvents = (...kinds: string[]) => events.filter((e) => e.event === "tx" && kinds.includes(e.kind as string));
const inTx = (hash: string) => logs.filter((l) => l.transactionHash === hash);

describe("MPP demo traffic on a devnet", () => {
  it("sets up both escrows at their deterministic addresses, then runs every kind of step without a failure", async () => {
    expect(stats.setup).toMatchObject({
      deployed: true,
      approved: true,
      sessionEscrowDeployed: true,
      sessionEscrowAddress: keys.sessionEscrowAddress,
      escrowAddress: keys.escrowAddress,
    });
    expect(stats.failed).toBe(0);
    expect(events.filter((e) => e.event === "tx_failed")).toEqual([]);
    for (const [kind, n] of Object.entries(stats.byKind)) expect(n, kind).toBeGreaterThan(0);
    const deployed = events.find((e) => e.event === "session_escrow_deployed")!;
    const receipt = await client.getTransactionReceipt({ hash: deployed.tx as Hash });
    expect(lc(receipt.contractAddress!)).toBe(keys.sessionEscrowAddress);
    expect(lc(receipt.from)).toBe(keys.sessionEscrowDeployer.address);
  });

  it("setup is idempotent on an already set-up devnet", async () => {
    const before = await client.getBlockNumber({ cacheTime: 0 });
    const again = await setupMppDemo({ client, keys, sender: createSenderPool(client) });
    expect(again).toEqual({
      escrowAddress: keys.escrowAddress,
      deployed: false,
      funded: [],
      approved: false,
      sessionEscrowAddress: keys.sessionEscrowAddress,
      sessionEscrowDeployed: false,
    });
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(before);
  });

  it("every charge is one mppx transferWithMemo: MPP tag, the realm's serverId, the paying agent's clientId; splits and currencies as offered", () => {
    const charges = txEvents("charge", "splitCharge", "gatewayCharge");
    expect(charges.length).toBe(stats.byKind.charge + stats.byKind.splitCharge + stats.byKind.gatewayCharge);
    const agentsByAddress = new Map<string, (typeof keys.agents)[number]>(keys.agents.map((a) => [a.address, a]));
    const clientIds = new Set<string>();
    for (const c of charges) {
      const agent = agentsByAddress.get(lc(c.from as string))!;
      const memos = parseEventLogs({ abi: Abis.tip20, logs: inTx(c.tx as string), eventName: "TransferWithMemo" });
      expect(memos, c.tx as string).toHaveLength(1);
      const m = memos[0]!;
      expect(m.args.memo.slice(0, 12)).toBe("0xef1ed71201");
      expect(slice(m.args.memo, 5, 15)).toBe(fp(c.realm as string));
      expect(slice(m.args.memo, 15, 25)).toBe(fp(agent.clientId));
      clientIds.add(agent.clientId);
      expect(lc(m.args.from)).toBe(agent.address);
      expect(lc(m.args.to)).toBe(lc(c.to as string));
      const splits = c.splits as { recipient: string; amount: bigint }[];
      expect(m.args.amount).toBe((c.amount as bigint) - splits.reduce((s, x) => s + x.amount, 0n));
      const plain = parseEventLogs({ abi: Abis.tip20, logs: inTx(c.tx as string), eventName: "Transfer" }).filter(
        (t) => lc(t.args.to) !== FEE_MANAGER && lc(t.args.to) !== lc(c.to as string),
      );
      expect(
        plain.map((t) => [lc(t.args.to), t.args.amount]),
        "split legs",
      ).toEqual(splits.map((s) => [lc(s.recipient), s.amount]));
      if (c.kind === "gatewayCharge") expect(lc(c.to as string)).toBe(keys.gateway.address);
      if (c.kind === "splitCharge")
        expect(splits).toEqual([{ recipient: expect.stringMatching(new RegExp(`^${keys.computeProvider.address}$`, "i")), amount: 10_000n }]);
      expect(lc(m.address)).toBe(c.realm === "search-api.mpp.localhost" ? ALPHA_USD : PATH_USD);
    }
    expect(clientIds.size).toBe(3);
  });

  it("sessions: every channel opened by an agent is closed; its payouts (settles + close) add up to what the client spent, the rest refunded", () => {
    const escrowLogs = logs.filter((l) => lc(l.address) === keys.sessionEscrowAddress);
    const decoded = parseEventLogs({ abi: sessionEscrowAbi, logs: escrowLogs });
    const opened = decoded.filter((e) => e.eventName === "ChannelOpened");
    const closed = new Map(decoded.filter((e) => e.eventName === "ChannelClosed").map((e) => [e.args.channelId, e]));
    expect(opened.length).toBeGreaterThan(0);
    expect(closed.size).toBe(opened.length); // stop() closed what was still open
    const payees = new Set([keys.directServices[2]!.address, keys.rpcNode.address]);
    const clientSpent = new Map(
      events
        .filter((e) => e.event === "session_closed" || e.event === "session_empty")
        .map((e) => [e.channelId as Hex, e.event === "session_empty" ? "0" : (e.spent as string)]),
    );
    let empty = 0;
    for (const o of opened) {
      const { channelId, payer, payee, deposit } = o.args as { channelId: Hex; payer: string; payee: string; deposit: bigint };
      expect(keys.agents.map((a) => a.address)).toContain(lc(payer));
      expect(payees.has(lc(payee))).toBe(true);
      const mine = decoded.filter((e) => (e.args as { channelId: Hex }).channelId === channelId);
      const settledDeltas = mine.filter((e) => e.eventName === "Settled").reduce((s, e) => s + (e.args as { deltaPaid: bigint }).deltaPaid, 0n);
      const toppedUp = mine.filter((e) => e.eventName === "TopUp").reduce((s, e) => s + (e.args as { additionalDeposit: bigint }).additionalDeposit, 0n);
      const c = closed.get(channelId)!.args;
      const closeTransfers = parseEventLogs({ abi: Abis.tip20, logs: inTx(closed.get(channelId)!.transactionHash), eventName: "Transfer" }).filter(
        (t) => lc(t.args.from) === keys.sessionEscrowAddress,
      );
      const closePayout = closeTransfers.filter((t) => lc(t.args.to) === lc(payee)).reduce((s, t) => s + t.args.amount, 0n);
      expect(settledDeltas + closePayout).toBe(c.settledToPayee); // settledToPayee is the channel's total
      expect(c.refundedToPayer).toBe(deposit + toppedUp - c.settledToPayee);
      expect(c.settledToPayee.toString()).toBe(clientSpent.get(channelId));
      if (c.settledToPayee === 0n) empty++;
    }
    expect(empty).toBe(stats.byKind.emptySession);
    expect(decoded.filter((e) => e.eventName === "TopUp")).toHaveLength(stats.byKind.sessionTopUp);
  });

  it("the gateway pays its providers through the gateway escrow (Transfer then Settlement); agents pay each other; fees go to the FeeManager", () => {
    const settlements = parseEventLogs({ abi: gatewayEscrowAbi, logs: logs.filter((l) => lc(l.address) === keys.escrowAddress), eventName: "Settlement" });
    expect(settlements.length).toBe(stats.byKind.settlement);
    const providers = new Set<string>(keys.routedServices.map((r) => r.provider.address));
    for (const s of settlements) {
      expect(lc(s.args.gateway)).toBe(keys.gateway.address);
      expect(providers.has(lc(s.args.serviceProvider))).toBe(true);
      const leg = parseEventLogs({ abi: Abis.tip20, logs: inTx(s.transactionHash), eventName: "Transfer" }).find(
        (t) => lc(t.args.to) === lc(s.args.serviceProvider),
      );
      expect(leg?.args.amount).toBe(s.args.amountOut);
    }
    const agents = new Set<string>(keys.agents.map((a) => a.address));
    const a2a = parseEventLogs({ abi: Abis.tip20, logs, eventName: "Transfer" }).filter((t) => agents.has(lc(t.args.from)) && agents.has(lc(t.args.to)));
    expect(a2a.length).toBe(stats.byKind.agentToAgent);
    expect(parseEventLogs({ abi: Abis.tip20, logs, eventName: "Transfer" }).some((t) => lc(t.args.to) === FEE_MANAGER)).toBe(true);
  });
});
