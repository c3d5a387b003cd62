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
export type EventRecord = Omit<EventDraft, "kind"> & { id: bigint; kind: string };

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

export interface EntityListItem extends EntityHead, WindowStats {
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
}

export interface TopEntity {
  id: string;
  label: string;
  category: string;
  txCount: number;
  amountSumWei: bigint;
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
