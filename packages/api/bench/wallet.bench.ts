// `npm run bench:wallet` — server-side overhead of POST /api/wallet/pay on the devnet.
//
// 1. A devnet (anvil, automine), a fresh database (BENCH_WALLET_DATABASE_URL, schema reset and migrated), the app in
//    this process with the wallet configured (sponsor = dev account 3).
// 2. Ten sessions paired through the real flow (software passkey → approve-init → authorization through the relay →
//    finalize → poll), each person's account funded.
// 3. Sequential: BENCH_WALLET_N (1,000) payments, one at a time, round-robin over the sessions. Overhead = the time
//    the pay handler spends on everything but the chain — body, auth, validation, the atomic cap reservation, key
//    decryption, signing, the ledger write after the receipt — measured inside the handler (timestamps around the
//    eth_sendRawTransactionSync wait, reported through onPayTiming). p50/p99, plus the client-side latency, and the CPU
//    time of this process per payment (server + client; a figure the machine's load does not inflate as it does
//    wall-clock times).
// 4. Concurrent: 10 sessions paying at once (one payment in flight per session), BENCH_WALLET_N payments in total:
//    payments/s, and the overhead under that load.
//
// Every payment carries a fresh Idempotency-Key, as `agent-ledger pay` sends (BENCH_WALLET_IDEMPOTENCY=0: none).
//
// Target: overhead p99 ≤ 15 ms. Env: BENCH_WALLET_N (1000), BENCH_WALLET_SESSIONS (10), BENCH_WALLET_DATABASE_URL.
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import { resetDatabase } from "@agent-ledger/db";
import { startAnvil } from "@agent-ledger/devnet";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { PayTiming } from "../src/wallet/pay.ts";
import { SoftAuthenticator } from "../test/support/softAuthenticator.ts";
import { call, startWalletApp } from "../test/support/walletApp.ts";
import { fund, pairAgent } from "../test/support/walletFlow.ts";

const N = Number(process.env.BENCH_WALLET_N ?? 1_000);
const SESSIONS = Number(process.env.BENCH_WALLET_SESSIONS ?? 10);
const KEYS = process.env.BENCH_WALLET_IDEMPOTENCY !== "0";
const DB = process.env.BENCH_WALLET_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/agent_ledger_bench_wallet";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

async function main() {
  console.log(`wallet bench: ${N} payments, ${SESSIONS} sessions, ${KEYS ? "an Idempotency-Key on each" : "no idempotency keys"}; load ${load()}`);
  const anvil = await startAnvil();
  await resetDatabase(DB);

  const timings: PayTiming[] = [];
  const t = await startWalletApp(
    DB,
    anvil.url,
    {
      pollIntervalSeconds: 0,
      startPerMinute: 1_000_000,
      lookupPerMinute: 1_000_000,
      onPayTiming: (x) => timings.push(x),
    },
    randomBytes(32),
  );
  t.logs.length = 0;
  try {
    const sessions: { bearer: string }[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const r = await pairAgent(t.url, anvil.url, {
        authn: new SoftAuthenticator(),
        grant: { spend_cap_wei: "1000000000000", per_call_cap_wei: "1000000", session_ttl_seconds: 3600 },
        label: `bench-${i}`,
      });
      await fund(anvil.url, r.token.managed_address, 10_000_000_000n);
      sessions.push({ bearer: r.token.access_token });
    }
    const recipients = Array.from({ length: 50 }, () => privateKeyToAccount(generatePrivateKey()).address);
    const pay = async (i: number) => {
      const s = sessions[i % sessions.length]!;
      const t0 = performance.now();
      const res = await call(t.url, "POST", "/api/wallet/pay", {
        bearer: s.bearer,
        body: { to: recipients[i % recipients.length], amount_wei: String(1000 + (i % 997)), memo: `bench-${i}` },
        headers: KEYS ? { "idempotency-key": randomUUID() } : {},
      });
      if (res.status !== 200) throw new Error(`payment ${i}: ${res.status} ${res.text}`);
      return performance.now() - t0;
    };
    for (let i = 0; i < 30; i++) await pay(i); // warm-up: JIT, pools, gas price cache
    timings.length = 0;
    t.logs.length = 0;

    // Sequential
    const latency: number[] = [];
    const cpu0 = process.cpuUsage();
    const s0 = performance.now();
    for (let i = 0; i < N; i++) latency.push(await pay(i));
    const seqSeconds = (performance.now() - s0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    // CPU time, not wall time: what a loaded machine's scheduling does not inflate (the client's share included; the
    // devnet and PostgreSQL are other processes and not in it).
    const cpuPerPayment = (cpu.user + cpu.system) / 1000 / N;
    const seq = timings.splice(0);
    const overhead = seq.map((x) => x.totalMs - x.chainMs);
    const chain = seq.map((x) => x.chainMs);
    const seqLoad = load();

    // Concurrent: one payment in flight per session
    const per = Math.ceil(N / sessions.length);
    const c0 = performance.now();
    await Promise.all(
      sessions.map(async (_s, k) => {
        for (let j = 0; j < per; j++) await pay(k + j * sessions.length);
      }),
    );
    const conSeconds = (performance.now() - c0) / 1000;
    const con = timings.splice(0);
    const conOverhead = con.map((x) => x.totalMs - x.chainMs);
    const conChain = con.map((x) => x.chainMs);

    const stage = (k: "authMs" | "reserveMs" | "signMs" | "finishMs", xs: PayTiming[]) => xs.map((x) => x.stages?.[k] ?? 0);
    const stages = (xs: PayTiming[]) =>
      (["authMs", "reserveMs", "signMs", "finishMs"] as const)
        .map(
          (k) =>
            `${{ authMs: "body", reserveMs: "auth+reserve", signMs: "sign", finishMs: "finish" }[k]} ${pct(stage(k, xs), 50).toFixed(2)}/${pct(stage(k, xs), 99).toFixed(2)}`,
        )
        .join(", ");
    const report = [
      `sequential (${seq.length} payments, ${(seq.length / seqSeconds).toFixed(1)} payments/s, load ${seqLoad}):`,
      `  server-side overhead  p50 ${ms(pct(overhead, 50))}  p99 ${ms(pct(overhead, 99))}  max ${ms(Math.max(...overhead))}`,
      `  chain wait            p50 ${ms(pct(chain, 50))}  p99 ${ms(pct(chain, 99))}`,
      `  stages p50/p99 (ms)   ${stages(seq)}`,
      `  client latency        p50 ${ms(pct(latency, 50))}  p99 ${ms(pct(latency, 99))}`,
      `  CPU of this process   ${ms(cpuPerPayment)} per payment (server + client, user + system)`,
      `concurrent (${sessions.length} sessions, ${con.length} payments in ${conSeconds.toFixed(2)} s = ${(con.length / conSeconds).toFixed(1)} payments/s, load ${load()}):`,
      `  server-side overhead  p50 ${ms(pct(conOverhead, 50))}  p99 ${ms(pct(conOverhead, 99))}`,
      `  chain wait            p50 ${ms(pct(conChain, 50))}  p99 ${ms(pct(conChain, 99))}`,
      `  stages p50/p99 (ms)   ${stages(con)}`,
      `target overhead p99 ≤ 15 ms (sequential): ${pct(overhead, 99) <= 15 ? "met" : "NOT met"}`,
    ];
    console.log(report.join("\n"));
    const { rows } = await t.pool.query("SELECT status, count(*)::int AS n FROM wallet_payments GROUP BY status");
    console.log("wallet_payments:", JSON.stringify(rows));
  } finally {
    await t.close();
    await anvil.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
