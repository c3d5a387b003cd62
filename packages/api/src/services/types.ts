import type { EventDraft } from "@agent-ledger/core";
import type pg from "pg";

/** What the services need from PostgreSQL (a pg.Pool, or a client in tests). */
export type Db = Pick<pg.Pool, "query">;

/** Shared by every service function: the database, the live methodology version, and the clock. */
export interface ServiceContext {
  db: Db;
  /** Only rows (and rollups) of this methodology version are served. */
  version: string;
  now: () => Date;
}

export type EntityKind = "service" | "agent";

/**
 * One agent_events row: the matcher's row (core EventDraft) with its database id. `kind` is read back as
 * a plain string (rows of other methodology versions may carry other kinds). Amounts are bigint; the
 * edges turn them into decimal strings.
 */
export type EventRecord = Omit<EventDraft, "kind"> & {
  id: bigint;
  kind: string;
  /** The registry's label of `clientFingerprint` (table `client_labels`); null when none (or no client). */
  clientLabel: string | null;
};

/** Where and when one escrow event of a session happened. */
export interface SessionStep {
  txHash: string;
  logIndex: number;
  /** Block time. */
  ts: Date;
}

/**
 * A payment channel's life (methodology v0.3 session rows) as the registry's escrow logged it, from the stored raw logs:
 * its ChannelOpened, TopUps, Settled and ChannelClosed events decoded by the escrow's ABI (core decodeEscrowLog).
 * Only events of transactions that produced a row of the channel are stored and shown.
 */
export interface SessionLife {
  channelId: string;
  escrowAddress: string;
  escrowLabel: string;
  payer: string;
  payee: string;
  /** The channel's token: ChannelOpened's, else the escrow's registry default; null when neither is known. */
  tokenAddress: string | null;
  opened: (SessionStep & { tokenAddress: string; depositWei: bigint }) | null;
  topUps: (SessionStep & { additionalDepositWei: bigint; newDepositWei: bigint })[];
  settlements: (SessionStep & { cumulativeAmountWei: bigint; deltaPaidWei: bigint; newSettledWei: bigint })[];
  /** settledToPayee is the channel's cumulative settled total (docs/methodology.md, v0.3). */
  closed: (SessionStep & { settledToPayeeWei: bigint; refundedToPayerWei: bigint }) | null;
  /** What the payer put in: the last TopUp's newDeposit, else the opening deposit; null when neither was seen. */
  depositWei: bigint | null;
  /** What the payee was paid in total: the close's settledToPayee, else the last Settled's newSettled, else 0. */
  settledWei: bigint;
  /** What went back to the payer at close; null while the channel is not closed. */
  refundedWei: bigint | null;
}

export interface EntityHead {
  id: string;
  label: string;
  category: string;
  kind: string;
  active: boolean;
}

/** Payments (sent + received) of one entity in the last 24 h and 7 d windows. */
export interface WindowStats {
  txCount24h: number;
  amountSumWei24h: bigint;
  txCount7d: number;
  amountSumWei7d: bigint;
}

/** WindowStats split by token (docs/methodology.md, API per-token breakdowns). */
export interface WindowTokenStats {
  byToken24h: TokenAmount[];
  byToken7d: TokenAmount[];
}

export interface EntityListItem extends EntityHead, WindowStats, WindowTokenStats {
  wallets: string[];
  lastEventAt: Date | null;
}

export interface EntityTotals {
  txCount: number;
  amountSumWei: bigint;
  feeCount: number;
  feeSumWei: bigint;
}

export interface TrendPoint {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  txCount: number;
  amountSumWei: bigint;
}

export type ProviderPattern = "address" | "fingerprint";

export interface ProviderSummary {
  key: string;
  pattern: ProviderPattern;
  address: string | null;
  fingerprint: string | null;
  label: string | null;
  txCount: number;
  amountSumWei: bigint;
  /** txCount / amountSumWei per token, same span (largest amount first). */
  byToken: TokenAmount[];
}

export interface ProviderSeen {
  firstSeenAt: Date;
  lastSeenAt: Date;
}

export type ProviderDetail = ProviderSummary & ProviderSeen;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface EntityDetail extends EntityHead {
  wallets: string[];
  totals: EntityTotals;
  trend: TrendPoint[];
  recentEvents: Page<EventRecord>;
  /** Only for `tempo-gateway-mpp`. */
  providers?: ProviderDetail[];
  /** totals and trend split by token. */
  tokens: EntityTokenSummary;
}

/** An entity's all-time totals and 30-day trend split by token (entity_token_activity_daily). */
export interface EntityTokenSummary {
  /** Payments (sent + received) per token, all time. */
  byToken: TokenAmount[];
  /** Fees paid per token, all time. */
  feesByToken: TokenAmount[];
  /** Per trend day (same order as the trend), payments per token. */
  trend: TokenAmount[][];
}

export interface TopEntity {
  id: string;
  label: string;
  category: string;
  txCount: number;
  amountSumWei: bigint;
  /** txCount / amountSumWei per token in the window. */
  byToken: TokenAmount[];
}

/** txCount / amountSumWei of one token (docs/methodology.md: amounts of different tokens are raw units of each). */
export interface TokenAmount {
  tokenAddress: string;
  /** From the registry's token allowlist; null for a token it does not list (v0.1 rows of any contract). */
  symbol: string | null;
  decimals: number | null;
  currency: string | null;
  txCount: number;
  amountSumWei: bigint;
}

export interface Dashboard {
  window: string;
  windowHours: number;
  txCount: number;
  agentsActive: number;
  amountSumWei: bigint;
  /** txCount and amountSumWei split by token, largest amount first (their sums are txCount and amountSumWei). */
  byToken: TokenAmount[];
  providersDetected: number;
  topServices: TopEntity[];
  topAgents: TopEntity[];
  topProviders: ProviderSummary[];
  recentEvents: EventRecord[];
}

export interface EventDetail {
  event: EventRecord;
  relatedEvents: EventRecord[];
  /** The channel's life when the row is a session row (has a channel id); else null. */
  session: SessionLife | null;
}

export interface EntitySearchHit {
  id: string;
  label: string;
  category: string;
  kind: string;
  active: boolean;
  wallets: string[];
}

export interface AddressLabelRecord {
  address: string;
  label: string;
  category: string | null;
  source: string;
}

export interface SearchResult {
  q: string;
  events: Page<EventRecord>;
  entities: Page<EntitySearchHit>;
  addresses: Page<AddressLabelRecord>;
}
