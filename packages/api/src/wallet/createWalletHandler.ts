import type pg from "pg";
import type { Logger } from "pino";
import { createWalletChain, type WalletChain } from "./chain.ts";
import { resolveWalletConfig, type WalletOptions } from "./config.ts";
import type { WalletContext } from "./context.ts";
import type { PayTiming } from "./pay.ts";
import { createRateLimits } from "./rateLimiter.ts";
import { createRelayHandler } from "./relay.ts";
import { createSignerCache } from "./sessionSigner.ts";
import { sweepReservations } from "./sweepReservations.ts";
import type { WalletRouteDeps } from "./walletRoutes.ts";

export interface WalletDeps {
  db: pg.Pool;
  log: Logger;
  options?: Partial<WalletOptions>;
  now?: () => Date;
  /** Per-payment timings (the benchmark reads server-side overhead from here). */
  onPayTiming?: (t: PayTiming) => void;
  /** Injected chain (tests); default: built from the options. */
  chain?: WalletChain;
}

/**
 * The wallet (docs/wallet.md): its context (database, chain, rate limits, signer cache), what its routes need
 * (wallet/walletRoutes.ts) and the reservation sweeper.
 */
export function createWalletHandler(deps: WalletDeps) {
  const config = resolveWalletConfig(deps.options);
  const ctx: WalletContext = {
    db: deps.db,
    log: deps.log,
    config,
    chain: deps.chain ?? createWalletChain(config),
    now: deps.now ?? (() => new Date()),
    limits: createRateLimits(
      {
        redisUrl: config.redisUrl,
        keyPrefix: config.rateLimitPrefix,
        trustProxy: config.trustProxy,
        perMinute: {
          start: config.startPerMinute,
          code: config.codePerMinute,
          codeUser: config.codePerUserPerMinute,
          options: config.webauthnOptionsPerMinute,
          relay: config.relayPerMinute,
        },
      },
      deps.log,
    ),
    signers: createSignerCache(),
  };
  /** What the wallet's routes need (wallet/walletRoutes.ts; buildApp mounts them). */
  const routeDeps: WalletRouteDeps = { ctx, onPayTiming: deps.onPayTiming, relay: createRelayHandler(ctx) };

  // Settles reservations that an interrupted payment left behind (sweepReservations), every sweepIntervalMs.
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  const sweep = () => {
    if (sweeping) return;
    sweeping = sweepReservations(ctx, ctx.now())
      .catch((err) => ctx.log.error({ err }, "wallet sweeper failed"))
      .finally(() => (sweeping = null));
  };

  return {
    /** What every wallet operation gets (the GraphQL owner fields use it too: schema/WalletOwner.ts). */
    ctx,
    routeDeps,
    /** Starts the reservation sweeper (only with a chain and a non-zero interval). */
    startSweeper(): void {
      if (sweeper || !config.rpcUrl || config.sweepIntervalMs <= 0) return;
      sweeper = setInterval(sweep, config.sweepIntervalMs);
      sweeper.unref();
    },
    async stopSweeper(): Promise<void> {
      if (sweeper) clearInterval(sweeper);
      sweeper = null;
      await sweeping;
    },
    /** Stops the sweeper and closes the rate limits' Redis connection. */
    async close(): Promise<void> {
      if (sweeper) clearInterval(sweeper);
      sweeper = null;
      await sweeping;
      ctx.limits.close();
    },
  };
}
