import type pg from "pg";
import type { RouteResult } from "../routes/Route.ts";
import type { Logger } from "pino";
import type { WalletChain } from "./chain.ts";
import type { WalletConfig } from "./config.ts";
import type { RateLimits } from "./rateLimiter.ts";
import type { SignerCache } from "./sessionSigner.ts";

/** What every wallet handler gets. */
export interface WalletContext {
  db: pg.Pool;
  log: Logger;
  config: WalletConfig;
  chain: WalletChain;
  now: () => Date;
  /** Redis-backed rate limits shared by every API process (rateLimiter.ts). */
  limits: RateLimits;
  /** What signing a payment needs per bearer-token hash: public data and the sealed key only (sessionSigner.ts). */
  signers: SignerCache;
}

/** What a handler answers: the one result type of every route (routes/Route.ts; Set-Cookie may repeat). */
export type WalletResponse = RouteResult;
