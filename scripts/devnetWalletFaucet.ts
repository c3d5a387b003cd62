// `npm start` on the local devnet only: every passkey account (wallet_users.managed_address) gets pathUSD from an
// anvil dev account, so an agent paired on this machine can pay at once (docs/wallet.md § Trying it locally). The
// devnet starts from genesis at every `npm start`, so each run funds every account once, old ones included. Never on a
// real chain: start.ts starts it only without TEMPO_RPC_URL.
import { createDevnetClient, DEV_PRIVATE_KEYS, PATH_USD } from "@agent-ledger/devnet";
import pg from "pg";
import type { Hex } from "viem";
import { Account } from "viem/tempo";

/** anvil dev account 6: no demo identity uses it (0 and 1 are the demo faucets, 3 the sponsor), so no nonce race. */
const WALLET_FAUCET_KEY = DEV_PRIVATE_KEYS[6];
/** 1,000 pathUSD (6 decimals). */
const WALLET_FAUCET_AMOUNT = 1_000_000_000n;

export interface DevnetWalletFaucet {
  stop(): Promise<void>;
}

export function startDevnetWalletFaucet(o: {
  databaseUrl: string;
  rpcUrl: string;
  intervalMs?: number;
  onFunded?: (address: string) => void;
  onError?: (error: unknown) => void;
}): DevnetWalletFaucet {
  const db = new pg.Pool({ connectionString: o.databaseUrl, max: 1, application_name: "npm-start-wallet-faucet" });
  db.on("error", () => {});
  const client = createDevnetClient({ url: o.rpcUrl, account: Account.fromSecp256k1(WALLET_FAUCET_KEY) });
  const funded = new Set<string>();
  let running: Promise<void> | null = null;
  let stopped = false;

  /** Funds the accounts not funded yet in this run, one transfer at a time (one pass at a time). */
  const pass = () =>
    (running ??= (async () => {
      try {
        const { rows } = await db.query<{ managed_address: string }>("SELECT managed_address FROM wallet_users ORDER BY created_at");
        for (const { managed_address: address } of rows) {
          if (stopped || funded.has(address)) continue;
          const r = await client.token.transferSync({ token: PATH_USD, to: address as Hex, amount: WALLET_FAUCET_AMOUNT });
          if (r.receipt.status !== "success") throw new Error(`funding ${address} reverted`);
          funded.add(address);
          o.onFunded?.(address);
        }
      } finally {
        running = null;
      }
    })());

  const timer = setInterval(() => void pass().catch((e) => o.onError?.(e)), o.intervalMs ?? 2_000);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
      await db.end().catch(() => {});
    },
  };
}
