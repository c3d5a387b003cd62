import type { Hex } from "viem";

/** Wallet configuration (docs/wallet.md § Configuration). Chain-less / key-less deployments answer 503 `not_configured` where needed. */
export interface WalletOptions {
  /** AES-256-GCM master key sealing agent keys (SECRETS_MASTER_KEY). */
  masterKey: Buffer | null;
  production: boolean;
  /** PUBLIC_BASE_URL: approve_url and relay_url are built from it. */
  publicBaseUrl?: string;
  /** WEBAUTHN_RP_ID */
  rpId?: string;
  /** WEBAUTHN_ORIGIN (one or more expected origins). */
  origins?: string[];
  rpName?: string;
  /** TEMPO_RPC_URL */
  rpcUrl?: string;
  /** TEMPO_PUBLIC_RPC_URL: what the browser is told (default rpcUrl). */
  publicRpcUrl?: string;
  /** TEMPO_CHAIN_ID (default: eth_chainId of the RPC, asked once). */
  chainId?: number;
  /** EXPLORER_BASE_URL */
  explorerBaseUrl?: string;
  /** WALLET_DEFAULT_TOKEN (also the token the sponsor pays fees in). */
  defaultToken?: `0x${string}`;
  /** SPONSOR_PRIVATE_KEY */
  sponsorPrivateKey?: Hex;
  /** Seconds a device must wait between polls (default 5; 0 disables slow_down — tests). */
  pollIntervalSeconds?: number;
  /** Redis holding the rate-limit counters, shared by every API process (REDIS_URL; default redis://127.0.0.1:6379). */
  redisUrl?: string;
  /** Prefix of the rate-limit keys in Redis (RATE_LIMIT_PREFIX; default "al:rl"). */
  rateLimitPrefix?: string;
  /** Proxy hops whose X-Forwarded-For entry is believed for the client address (TRUST_PROXY; default 0 = socket address). */
  trustProxy?: number;
  /** device/start per client address per minute (WALLET_START_PER_MINUTE, default 10; 0 = unlimited, as for every limit). */
  startPerMinute?: number;
  /** Requests carrying a device code (lookup, approve-init, approve-finalize) per client address per minute (WALLET_CODE_PER_MINUTE, default 30). */
  codePerMinute?: number;
  /** @deprecated the old name of codePerMinute (used when codePerMinute is absent). */
  lookupPerMinute?: number;
  /** The same requests per signed-in passkey user per minute (WALLET_CODE_PER_USER_PER_MINUTE, default 20). */
  codePerUserPerMinute?: number;
  /** webauthn register/options + auth/options per client address per minute (WALLET_WEBAUTHN_OPTIONS_PER_MINUTE, default 30). */
  webauthnOptionsPerMinute?: number;
  /** Relay requests per client address per minute (WALLET_RELAY_PER_MINUTE, default 120). */
  relayPerMinute?: number;
  /** Stored unused WebAuthn challenges per client address; older ones are deleted (WEBAUTHN_CHALLENGES_PER_CLIENT, default 20). */
  challengesPerClient?: number;
  /** approve-finalize waits this long for the receipt (default 15 s). */
  receiptTimeoutMs?: number;
  /** A payment's transaction is valid this long; its receipt wait is bounded by it (default 15 s). */
  paymentValiditySeconds?: number;
  /** Gas limit of a payment transaction (default 1,000,000; the sponsor pays only what is used). */
  paymentGas?: bigint;
  /** How often the reservation sweeper runs (WALLET_SWEEP_INTERVAL_MS, default 60 s; 0 = never). Needs rpcUrl. */
  sweepIntervalMs?: number;
}

export interface WalletConfig {
  masterKey: Buffer | null;
  production: boolean;
  publicBaseUrl: string;
  rpId: string;
  origins: string[];
  rpName: string;
  rpcUrl: string | undefined;
  publicRpcUrl: string | undefined;
  chainId: number | undefined;
  explorerBaseUrl: string | undefined;
  defaultToken: `0x${string}`;
  sponsorPrivateKey: Hex | undefined;
  pollIntervalSeconds: number;
  redisUrl: string;
  rateLimitPrefix: string;
  trustProxy: number;
  startPerMinute: number;
  codePerMinute: number;
  codePerUserPerMinute: number;
  webauthnOptionsPerMinute: number;
  relayPerMinute: number;
  challengesPerClient: number;
  receiptTimeoutMs: number;
  paymentValiditySeconds: number;
  paymentGas: bigint;
  sweepIntervalMs: number;
}

export const PATH_USD = "0x20c0000000000000000000000000000000000000" as const;

export function resolveWalletConfig(o: Partial<WalletOptions> = {}): WalletConfig {
  const publicBaseUrl = (o.publicBaseUrl ?? "http://localhost:3000").replace(/\/+$/, "");
  return {
    masterKey: o.masterKey ?? null,
    production: o.production ?? false,
    publicBaseUrl,
    rpId: o.rpId ?? "localhost",
    origins: o.origins?.length ? o.origins : [new URL(publicBaseUrl).origin],
    rpName: o.rpName ?? "Agent Ledger",
    rpcUrl: o.rpcUrl,
    publicRpcUrl: o.publicRpcUrl ?? o.rpcUrl,
    chainId: o.chainId,
    explorerBaseUrl: o.explorerBaseUrl?.replace(/\/+$/, ""),
    defaultToken: (o.defaultToken ?? PATH_USD).toLowerCase() as `0x${string}`,
    sponsorPrivateKey: o.sponsorPrivateKey,
    pollIntervalSeconds: o.pollIntervalSeconds ?? 5,
    redisUrl: o.redisUrl ?? "redis://127.0.0.1:6379",
    rateLimitPrefix: o.rateLimitPrefix ?? "al:rl",
    trustProxy: o.trustProxy ?? 0,
    startPerMinute: o.startPerMinute ?? 10,
    codePerMinute: o.codePerMinute ?? o.lookupPerMinute ?? 30,
    codePerUserPerMinute: o.codePerUserPerMinute ?? 20,
    webauthnOptionsPerMinute: o.webauthnOptionsPerMinute ?? 30,
    relayPerMinute: o.relayPerMinute ?? 120,
    challengesPerClient: Math.max(1, o.challengesPerClient ?? 20),
    receiptTimeoutMs: o.receiptTimeoutMs ?? 15_000,
    paymentValiditySeconds: o.paymentValiditySeconds ?? 15,
    paymentGas: o.paymentGas ?? 1_000_000n,
    sweepIntervalMs: o.sweepIntervalMs ?? 60_000,
  };
}
