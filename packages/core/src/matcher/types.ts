import type { EventKind } from "./constants.ts";

/** A log as the node returned it; hex strings lowercase or not, block number as bigint. */
export interface RawLog {
  blockNumber: bigint;
  blockHash: string;
  /** Unix seconds of the block. */
  blockTimestamp: number;
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
}
