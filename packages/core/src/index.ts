// @agent-ledger/core — pure domain logic: no I/O, no environment, time passed in.
export { LedgerError, InvalidAddressError, InvalidAmountError, InvalidRegistryError, UnknownMethodologyError } from "./errors.ts";
export { isAddress, normalizeAddress } from "./address/normalizeAddress.ts";
export { MAX_U256, parseU256, hexWordToBigInt } from "./money/parseU256.ts";
export {
  EVENT_KINDS, FEE_MANAGER_ADDRESS, GATEWAY_MEMO_MAGIC, INDEXED_TOPICS, SETTLEMENT_TOPIC, SETTLEMENT_TOPIC_MAINNET,
  TRANSFER_TOPIC, TRANSFER_WITH_MEMO_TOPIC, type EventKind,
} from "./matcher/constants.ts";
export { decodeLog, type DecodedLog } from "./matcher/decodeLog.ts";
export { matchLogs } from "./matcher/matchLogs.ts";
export { parseGatewayMemo } from "./matcher/parseGatewayMemo.ts";
export { selectWatchedLogs } from "./matcher/selectWatchedLogs.ts";
export { CURRENT_METHODOLOGY_VERSION, METHODOLOGY_VERSIONS, assertMethodologyVersion, type MethodologyVersion } from "./matcher/methodology.ts";
export type { EventDraft, Label, MatchContext, RawLog, WatchedEntity } from "./matcher/types.ts";
export { nextChunkSize, type ChunkOutcome, type ChunkPolicy } from "./sync/nextChunkSize.ts";
export { getBackoffDelay } from "./sync/getBackoffDelay.ts";
export { ENTITY_ID, entityKind, parseRegistry, type Registry, type RegistryEntity } from "./registry/parseRegistry.ts";
