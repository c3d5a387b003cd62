import type { EventKind } from "./constants.ts";

/** A log as the node returned it; hex strings lowercase or not, block number as bigint. */
export interface RawLog {
  blockNumber: bigint;
  blockHash: string;
  /** Unix seconds of the block. */
  blockTimestamp: number;
  /** Unix milliseconds of the block when the node provides them (Tempo's `timestampMillis`); v0.2 prefers it. */
  blockTimestampMs?: number;
  txHash: string;
  txIndex: number;
  logIndex: number;
  address: string;
  topics: readonly string[];
  data: string;
}

export interface WatchedEntity {
  id: string;
  label: string;
  category: string;
  trackFees: boolean;
}

export interface Label {
  label: string;
  category: string | null;
}

/** Everything the matcher knows besides the logs. Keys of the maps are lowercase. */
export interface MatchContext {
  /** wallet address → the watched entity owning it (active entities only). */
  wallets: ReadonlyMap<string, WatchedEntity>;
  addressLabels: ReadonlyMap<string, Label>;
  fingerprintLabels: ReadonlyMap<string, Label>;
  /** Escrow contracts whose `Settlement` logs are trusted for attribution. */
  settlementContracts: ReadonlySet<string>;
  /** Base URL of the block explorer; rows link to `${explorerBaseUrl}/tx/${txHash}`. */
  explorerBaseUrl: string;
  // ── Used by methodology v0.2 only (v0.1 ignores them) ──
  /** Token allowlist (registry `tokens`): token address → its description. v0.2: no entry, no payment. */
  tokens?: ReadonlyMap<string, TokenInfo>;
  /** Settlement contract → the event it declares (registry `settlement_contracts[].event`); absent: the devnet `Settlement`. */
  settlementEvents?: ReadonlyMap<string, SettlementEventDefinition>;
  /** Gateway fingerprint → the provider address it is linked to (registry `fingerprint_labels[].provider_address`). */
  fingerprintProviders?: ReadonlyMap<string, string>;
  // ── Used by methodology v0.3 only (v0.1 and v0.2 ignore them) ──
  /**
   * MPP serverId (`0x` + 20 hex, lowercase) → the service entity it names and how the registry derived it
   * (registry v3 `entities[].server_ids`): keccak256(service host)[0..9] (`host`) or keccak256(directory realm)[0..9]
   * (`realm`, only when that realm belongs to this one service).
   */
  serverIds?: ReadonlyMap<string, ServerIdInfo>;
  /** MPP session escrow address (lowercase) → how its events are read (registry v3 `escrows`). */
  escrows?: ReadonlyMap<string, EscrowInfo>;
}

/** What a serverId names (methodology v0.3). */
export interface ServerIdInfo {
  entity: WatchedEntity;
  source: "host" | "realm";
}

/** A session escrow (methodology v0.3): the legacy TempoStreamChannel contract or the TIP-1034 precompile. */
export interface EscrowInfo {
  abi: "legacy" | "precompile";
  /** The escrow's own entity (category `escrow`): its point of view for rows when neither payer nor payee is watched. */
  entity: WatchedEntity;
}

/** Which rule attributed a v0.3 row (docs/methodology.md, v0.3). Null on v0.1/v0.2 rows and on funding/fee rows. */
export type Attribution = "recipient_wallet" | "server_id_host" | "server_id_realm" | "session_escrow";

export interface TokenInfo {
  symbol: string;
  decimals: number;
  currency: string;
}

/** How a trusted settlement contract's event is read: its topic0 and which indexed topic (2 or 3) is the provider. */
export interface SettlementEventDefinition {
  topic0: string;
  providerTopic: 2 | 3;
  /** Checked against a real transaction (docs/methodology.md, rule 7); informative, the matcher uses it either way. */
  verified: boolean;
}

/** A matched ledger row before it has a database id. Field meanings follow the API spec's Event row. */
export interface EventDraft {
  ts: Date;
  agentId: string;
  agentLabel: string;
  agentCategory: string;
  counterpartyAddress: string;
  counterpartyLabel: string;
  counterpartyCategory: string | null;
  kind: EventKind;
  amountWei: bigint;
  tokenAddress: string;
  txHash: string;
  logIndex: number;
  sourceBlock: bigint;
  methodologyVersion: string;
  routedToAddress: string;
  routedToLabel: string;
  routedFingerprint: string | null;
  explorerUrl: string;
  // ── Methodology v0.3 (null in every v0.1/v0.2 row) ──
  /** Which rule attributed the row. */
  attribution: Attribution | null;
  /** MPP memo clientId (`0x` + 20 hex), null for an anonymous client (10 zero bytes) or no MPP memo. */
  clientFingerprint: string | null;
  /** Session rows (payouts, deposits, top-ups, refunds): the channel id (`0x` + 64 hex). */
  channelId: string | null;
}
