import { randomBytes } from "node:crypto";
import { encodeFunctionData, parseUnits, stringToHex, toHex, type Address, type Hash, type Hex } from "viem";
import { Abis } from "viem/tempo";
import { createDevnetClient } from "../chain.ts";
import { PATH_USD, TOKEN_DECIMALS } from "../constants.ts";
import { abi as escrowAbi } from "../contracts/GatewayEscrow.artifact.ts";
import { createSenderPool } from "../createSenderPool.ts";
import { sendAdversarialTraffic } from "../adversarial/sendAdversarialTraffic.ts";
import { createMppAgent, type MppAgent, type MppSession } from "../mpp/createMppAgent.ts";
import type { LegacySessionEvent } from "../mpp/legacySession.ts";
import { startMppServer, type MppServer, type MppServerRealm } from "../mpp/startMppServer.ts";
import { demoKeys, type DemoAgent, type DemoKeys } from "./demoKeys.ts";
import { demoMppServers } from "./demoMppServers.ts";
import { fundDemoAccounts } from "./fundDemoAccounts.ts";
import { sessionPayees, setupMppDemo, type SetupMppDemoResult } from "./setupMppDemo.ts";

/**
 * What a demo step did: an MPP charge to a service's own wallet (`charge`, `splitCharge` with a split leg) or to the
 * gateway (`gatewayCharge`); a session request (`sessionRequest`: opens the channel the first time, else an off-chain
 * voucher), its server-side `sessionSettle`, the agent's `sessionTopUp` and `sessionClose` (payout + refund), a
 * session opened and closed without a voucher (`emptySession`); the gateway paying a provider through the gateway
 * escrow (`settlement`, Pattern A, not MPP); an agent paying another agent (`agentToAgent`, not MPP).
 */
export type DemoTxKind =
  | "charge"
  | "splitCharge"
  | "gatewayCharge"
  | "sessionRequest"
  | "sessionSettle"
  | "sessionTopUp"
  | "sessionClose"
  | "emptySession"
  | "settlement"
  | "agentToAgent";
export type DemoEvent = Record<string, unknown> & { event: string };

export type DemoTrafficStats = {
  startedAt: number;
  ticks: number;
  /** Steps started / finished / failed / not started (their lane or the in-flight budget was busy). */
  sent: number;
  confirmed: number;
  failed: number;
  skipped: number;
  byKind: Record<DemoTxKind, number>;
  setup: SetupMppDemoResult;
};

export type StartDemoTrafficParams = {
  rpcUrl: string;
  /** Steps started per second (each an MPP request or a transaction). */
  txPerSecond?: number;
  log?: (event: DemoEvent) => void;
  signal?: AbortSignal;
  keys?: DemoKeys;
  /** Source of randomness in [0,1) for agents, services, amounts and session lengths (default Math.random). */
  random?: () => number;
  /** Re-check balances and top up from the faucets this often (default 120 s). */
  topUpEveryMs?: number;
  /** Receipt timeout of the demo's own transactions (default 20 s). */
  txTimeoutMs?: number;
  /** stop() waits at most this long for in-flight steps and the closing of open sessions (default 10 s). */
  stopTimeoutMs?: number;
  /**
   * Also send, once after setup, the adversarial cases of methodology v0.2 (sendAdversarialTraffic: spoofed Transfer,
   * junk token, forged memo and Settlement, outsider escrow call, funding, same-entity move, inactive entity, fee-AMM
   * liquidity deposit and withdrawal), so the running demo shows the ledger ignoring or classifying each (default
   * false; `npm start` turns it on).
   */
  adversarial?: boolean;
};

/** One cycle of 20 ticks: 4 charges, 2 split charges, 5 gateway charges, 6 session steps, 2 gateway payouts, 1 agent → agent. */
type Tick = "charge" | "splitCharge" | "gatewayCharge" | "session" | "settlement" | "agentToAgent";
const PATTERN: readonly Tick[] = [
  "charge",
  "gatewayCharge",
  "session",
  "splitCharge",
  "session",
  "gatewayCharge",
  "charge",
  "session",
  "settlement",
  "gatewayCharge",
  "session",
  "charge",
  "agentToAgent",
  "session",
  "gatewayCharge",
  "splitCharge",
  "session",
  "charge",
  "settlement",
  "gatewayCharge",
];
const TX_GAS = 600_000n;
const MAX_IN_FLIGHT = 50;
/** The gateway pays its providers 95 % of a random 0.01–0.50 (it keeps a margin of what agents paid it). */
const SETTLEMENT_MAX_CENTS = 50;

/** An agent's open session with one session realm, and where it is in its life. */
type Lane = { agent: DemoAgent; realm: MppServerRealm; session?: MppSession; requests: number; target: number; busy: boolean };

/**
 * Sets the MPP demo up once (idempotent: setupMppDemo), starts the demo's mppx servers on loopback (demoMppServers:
 * weather, search, llm with a split and sessions, the gateway's three realms, the RPC node's sessions) and sends MPP
 * traffic through the official mppx clients of the three demo agents (each with its own clientId) at `txPerSecond`
 * steps per second until stopped: charges, gateway charges, split charges and sessions (open, vouchers, settle,
 * top-up, close with refund, sometimes a session closed without a voucher), plus the gateway's payouts to its
 * providers through the gateway escrow and a few agent → agent transfers. A failed step is logged and the loop goes
 * on; stop() waits for in-flight steps and closes the open sessions (bounded by stopTimeoutMs).
 */
export async function startDemoTraffic(
  p: StartDemoTrafficParams,
): Promise<{ stop(): Promise<void>; stats(): DemoTrafficStats; servers: readonly MppServer[] }> {
  const { rpcUrl, txPerSecond = 2, log = () => {}, signal, keys = demoKeys(), random = Math.random } = p;
  const { topUpEveryMs = 120_000, txTimeoutMs = 20_000, stopTimeoutMs = 10_000 } = p;
  const client = createDevnetClient({ url: rpcUrl });
  const sender = createSenderPool(client);
  const logAs = (e: Record<string, unknown>) => log({ ...e, event: String(e.event) });

  const setup = await setupMppDemo({ client, keys, sender, log: logAs });
  log({ event: "demo_setup", ...setup });

  const stats: DemoTrafficStats = {
    startedAt: Date.now(),
    ticks: 0,
    sent: 0,
    confirmed: 0,
    failed: 0,
    skipped: 0,
    byKind: {
      charge: 0,
      splitCharge: 0,
      gatewayCharge: 0,
      sessionRequest: 0,
      sessionSettle: 0,
      sessionTopUp: 0,
      sessionClose: 0,
      emptySession: 0,
      settlement: 0,
      agentToAgent: 0,
    },
    setup,
  };
  /** The session servers' on-chain steps (open, top-up, settle, close), logged as the demo's transactions. */
  const onSessionEvent = (realm: string, { type, txHash, ...e }: LegacySessionEvent) => {
    const kind = ({ opened: "sessionOpen", toppedUp: "sessionTopUp", settled: "sessionSettle", closed: "sessionClose" } as const)[type];
    log({ event: "tx", kind, realm, ...e, tx: txHash });
  };
  const servers: MppServer[] = [];
  try {
    for (const s of demoMppServers(keys))
      servers.push(await startMppServer({ rpcUrl, realms: s.realms, escrowContract: keys.sessionEscrowAddress, onSessionEvent }));
  } catch (e) {
    await Promise.allSettled(servers.map((s) => s.stop()));
    throw e;
  }
  const realms = servers.flatMap((s) => [...s.realms.values()]);
  log({
    event: "mpp_servers",
    servers: servers.map((s) => ({
      url: s.url,
      realms: [...s.realms.values()].map((r) => ({
        realm: r.realm,
        serverId: r.serverId,
        ...(r.charge ? { chargeUrl: r.chargeUrl, recipient: r.charge.recipient, price: r.charge.amount, currency: r.charge.currency } : {}),
        ...(r.session ? { sessionUrl: r.sessionUrl, payee: r.session.payee.address, price: r.session.amount } : {}),
      })),
    })),
  });

  const agents = new Map<string, MppAgent>(
    keys.agents.map((a) => [a.id, createMppAgent({ rpcUrl, privateKey: a.privateKey, clientId: a.clientId, escrowContract: keys.sessionEscrowAddress })]),
  );
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const gatewayRealms = realms.filter((r) => r.charge && r.charge.recipient === keys.gateway.address);
  const directRealms = realms.filter((r) => r.charge && !r.charge.splits && r.charge.recipient !== keys.gateway.address);
  const splitRealms = realms.filter((r) => r.charge?.splits);
  const sessionRealms = realms.filter((r) => r.session);
  const lanes = new Map<string, Lane>();
  const laneOf = (agent: DemoAgent, realm: MppServerRealm): Lane => {
    const key = `${agent.id}:${realm.id}`;
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { agent, realm, requests: 0, target: 0, busy: false }));
    return lane;
  };

  const charge = async (kind: "charge" | "splitCharge" | "gatewayCharge", realm: MppServerRealm) => {
    const agent = pick(keys.agents);
    const paid = await agents.get(agent.id)!.charge(realm.chargeUrl!);
    log({
      event: "tx",
      kind,
      from: agent.address,
      clientId: agent.clientId,
      realm: paid.realm,
      serverId: paid.serverId,
      to: paid.recipient,
      token: paid.currency,
      amount: paid.amount,
      splits: paid.splits,
      tx: paid.reference,
    });
    return kind;
  };

  /** One step of an agent's session with a realm: open or voucher, sometimes top-up first, close after `target` requests. */
  const sessionStep = async (lane: Lane): Promise<DemoTxKind> => {
    const agent = agents.get(lane.agent.id)!;
    const url = lane.realm.sessionUrl!;
    const server = lane.realm.sessions!;
    if (!lane.session) {
      lane.session = agent.session(url);
      lane.requests = 0;
      lane.target = 3 + Math.floor(random() * 8);
      if (random() < 1 / 6) {
        // opened for nothing: a management open, then a close at 0 (no voucher ever reaches the chain)
        const s = lane.session;
        lane.session = undefined;
        await s.openOnly();
        const closed = await s.close();
        log({ event: "session_empty", from: lane.agent.address, realm: lane.realm.realm, channelId: closed?.channelId, tx: closed?.txHash });
        return "emptySession";
      }
    }
    const session = lane.session;
    if (lane.requests >= lane.target) {
      lane.session = undefined;
      const closed = await session.close();
      log({
        event: "session_closed",
        from: lane.agent.address,
        realm: lane.realm.realm,
        channelId: closed?.channelId,
        spent: closed?.spent,
        tx: closed?.txHash,
      });
      return "sessionClose";
    }
    const state = session.channelId ? server.channel(session.channelId) : undefined;
    const price = parseUnits(lane.realm.session!.amount, TOKEN_DECIMALS);
    if (state && state.deposit - state.acceptedCumulative < price) {
      await session.topUp(parseUnits(lane.realm.session!.suggestedDeposit, TOKEN_DECIMALS));
      return "sessionTopUp";
    }
    const { receipt } = await session.request();
    lane.requests++;
    log({
      event: "voucher",
      from: lane.agent.address,
      clientId: lane.agent.clientId,
      realm: lane.realm.realm,
      channelId: receipt?.channelId,
      cumulative: receipt?.acceptedCumulative,
      spent: receipt?.spent,
    });
    // the server pays itself out every third voucher (its own schedule; the rest comes at close)
    if (lane.requests % 3 === 0 && receipt?.channelId) {
      await server.settle(receipt.channelId);
      return "sessionSettle";
    }
    return "sessionRequest";
  };

  const transferCall = (token: Address, to: Address, value: bigint, memo?: Hex) => ({
    to: token,
    data: memo
      ? encodeFunctionData({ abi: Abis.tip20, functionName: "transferWithMemo", args: [to, value, memo] })
      : encodeFunctionData({ abi: Abis.tip20, functionName: "transfer", args: [to, value] }),
  });
  const cents = (max: number) => BigInt(1 + Math.floor(random() * max)) * 10_000n;
  const settlement = async (): Promise<DemoTxKind> => {
    const routed = pick(keys.routedServices);
    const amountIn = cents(SETTLEMENT_MAX_CENTS);
    const amountOut = (amountIn * 95n) / 100n;
    const sessionRef = toHex(randomBytes(32));
    const data = encodeFunctionData({ abi: escrowAbi, functionName: "settle", args: [PATH_USD, sessionRef, routed.provider.address, amountIn, amountOut] });
    const r = await sender(keys.gateway.privateKey).sendAndWait([{ to: keys.escrowAddress, data }], { gas: TX_GAS, timeoutMs: txTimeoutMs });
    log({
      event: "tx",
      kind: "settlement",
      from: keys.gateway.address,
      to: keys.escrowAddress,
      provider: routed.provider.address,
      service: routed.service,
      amountIn,
      amountOut,
      tx: r.transactionHash,
    });
    return "settlement";
  };
  const agentToAgent = async (): Promise<DemoTxKind> => {
    const agent = pick(keys.agents);
    const other = pick(keys.agents.filter((a) => a !== agent));
    const memo = random() < 0.5 ? stringToHex(`a2a-${100_000 + Math.floor(random() * 900_000)}`, { size: 32 }) : undefined;
    const value = cents(500);
    const r = await sender(agent.privateKey).sendAndWait([transferCall(PATH_USD, other.address, value, memo)], { gas: TX_GAS, timeoutMs: txTimeoutMs });
    log({ event: "tx", kind: "agentToAgent", from: agent.address, to: other.address, token: PATH_USD, amount: value, memo, tx: r.transactionHash });
    return "agentToAgent";
  };

  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };
  const run = (tick: Tick, step: () => Promise<DemoTxKind>, release?: () => void) => {
    stats.sent++;
    track(
      step()
        .then((kind) => {
          stats.confirmed++;
          stats.byKind[kind]++;
        })
        .catch((e: unknown) => {
          stats.failed++;
          log({ event: "tx_failed", kind: tick, error: (e as Error).message?.split("\n")[0] });
        })
        .finally(() => release?.()),
    );
  };

  const tick = (i: number) => {
    const kind = PATTERN[i % PATTERN.length]!;
    if (inFlight.size >= MAX_IN_FLIGHT) {
      stats.skipped++;
      log({ event: "tick_skipped", kind, inFlight: inFlight.size });
      return;
    }
    switch (kind) {
      case "charge":
        return run(kind, () => charge("charge", pick(directRealms)));
      case "splitCharge":
        return run(kind, () => charge("splitCharge", pick(splitRealms)));
      case "gatewayCharge":
        return run(kind, () => charge("gatewayCharge", pick(gatewayRealms)));
      case "settlement":
        return run(kind, settlement);
      case "agentToAgent":
        return run(kind, agentToAgent);
      case "session": {
        const lane = laneOf(pick(keys.agents), pick(sessionRealms));
        if (lane.busy) {
          stats.skipped++;
          log({ event: "tick_skipped", kind, lane: `${lane.agent.id}:${lane.realm.id}` });
          return;
        }
        lane.busy = true;
        return run(
          kind,
          () => sessionStep(lane),
          () => (lane.busy = false),
        );
      }
    }
  };

  let lastTopUp = Date.now();
  let toppingUp = false;
  const maybeTopUp = () => {
    if (toppingUp || Date.now() - lastTopUp < topUpEveryMs) return;
    toppingUp = true;
    lastTopUp = Date.now();
    track(
      fundDemoAccounts({ client, keys, sender, alsoFund: sessionPayees(keys), log: logAs })
        .then(() => undefined)
        .catch((e: unknown) => log({ event: "topup_failed", error: (e as Error).message?.split("\n")[0] }))
        .finally(() => (toppingUp = false)),
    );
  };

  if (p.adversarial) {
    track(
      sendAdversarialTraffic({
        client,
        sender,
        outsiderKey: keys.adversary.privateKey,
        funderKey: keys.faucets[0]!.privateKey,
        agentKey: keys.agents[0]!.privateKey,
        agentSecondWallet: keys.alphaSecondWallet.address,
        service: keys.directServices[0]!.address,
        gateway: keys.gateway.address,
        inactiveWallet: keys.retiredAgent.address,
        escrow: keys.escrowAddress,
        log: logAs,
      })
        .then((r) => log({ event: "adversarial_done", ...r.txs }))
        .catch((e: unknown) => log({ event: "adversarial_failed", error: (e as Error).message?.split("\n")[0] })),
    );
  }

  // drift-free schedule: tick i fires at start + i * period
  const period = 1000 / txPerSecond;
  const start = Date.now();
  let i = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const loop = () => {
    if (stopped) return;
    stats.ticks++;
    tick(i++);
    maybeTopUp();
    timer = setTimeout(loop, Math.max(0, start + i * period - Date.now()));
  };
  loop();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      stopped = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      let graceTimer: NodeJS.Timeout | undefined;
      const deadline = new Promise<boolean>((r) => (graceTimer = setTimeout(() => r(true), stopTimeoutMs)));
      const drained = async () => {
        await Promise.allSettled([...inFlight]);
        // close what is still open, so every channel's deposit goes back to its payer
        const open = [...lanes.values()].filter((l) => l.session?.channelId);
        await Promise.allSettled(
          open.map(async (l) => {
            const closed = await l.session!.close();
            l.session = undefined;
            stats.byKind.sessionClose++;
            log({
              event: "session_closed",
              from: l.agent.address,
              realm: l.realm.realm,
              channelId: closed?.channelId,
              spent: closed?.spent,
              tx: closed?.txHash as Hash | undefined,
            });
          }),
        );
        return false;
      };
      const gaveUp = await Promise.race([drained(), deadline]);
      clearTimeout(graceTimer);
      await Promise.allSettled(servers.map((s) => s.stop()));
      log({ event: "demo_stopped", sent: stats.sent, confirmed: stats.confirmed, failed: stats.failed, abandoned: gaveUp ? inFlight.size : 0 });
    })());
  const onAbort = () => void stop();
  if (signal?.aborted) void stop();
  else signal?.addEventListener("abort", onAbort, { once: true });

  return { stop, stats: () => ({ ...stats, byKind: { ...stats.byKind } }), servers };
}
