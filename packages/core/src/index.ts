// @agent-ledger/core — pure domain logic: no I/O, no environment, time passed in.
export { LedgerError, InvalidAddressError, InvalidAmountError, InvalidRegistryError, UnknownMethodologyError } from "./errors.ts";
export { isAddress, normalizeAddress } from "./address/normalizeAddress.ts";
export { isPlainText } from "./text/isPlainText.ts";
export { MAX_U256, parseU256, hexWordToBigInt } from "./money/parseU256.ts";
export { formatTokenUnits } from "./money/formatTokenUnits.ts";
export { parseTokenUnits } from "./money/parseTokenUnits.ts";
export { commonTokenUnit, minimumAmountUnit, type AllowedToken } from "./money/minimumAmountUnit.ts";
export { KNOWN_TOKEN_NAMES, tokenName } from "./money/tokenName.ts";
export {
  ACTIVITY_KINDS,
  EVENT_KINDS,
  FEE_MANAGER_ADDRESS,
  FUNDING_CATEGORIES,
  GATEWAY_CATEGORY,
  GATEWAY_MEMO_MAGIC,
  INDEXED_TOPICS,
  LEGACY_ESCROW_TOPICS,
  MPP_MEMO_TAG,
  MPP_MEMO_VERSION,
  PRECOMPILE_ESCROW_TOPICS,
  SESSION_ESCROW_TOPICS,
  SETTLEMENT_TOPIC,
  SETTLEMENT_TOPIC_MAINNET,
  TRANSFER_TOPIC,
  TRANSFER_WITH_MEMO_TOPIC,
  VIRTUAL_ADDRESS_MAGIC,
  ZERO_ADDRESS,
  type EventKind,
} from "./matcher/constants.ts";
export { decodeLog, type DecodedLog } from "./matcher/decodeLog.ts";
export { matchLogs } from "./matcher/matchLogs.ts";
export { matchLogsV02, type V02Note, type V02Trace } from "./matcher/matchLogsV02.ts";
export { matchLogsV03, type V03Note, type V03Trace } from "./matcher/matchLogsV03.ts";
export { parseMppMemo, type MppMemo } from "./matcher/parseMppMemo.ts";
export { decodeEscrowLog, type EscrowEvent } from "./matcher/decodeEscrowLog.ts";
export { parseGatewayMemo } from "./matcher/parseGatewayMemo.ts";
export { selectWatchedLogs } from "./matcher/selectWatchedLogs.ts";
export {
  CURRENT_METHODOLOGY_VERSION,
  DEFAULT_METHODOLOGY_VERSION,
  METHODOLOGY_VERSIONS,
  assertMethodologyVersion,
  type MethodologyVersion,
} from "./matcher/methodology.ts";
export type {
  Attribution,
  EscrowInfo,
  EventDraft,
  Label,
  MatchContext,
  RawLog,
  ServerIdInfo,
  SettlementEventDefinition,
  TokenInfo,
  WatchedEntity,
} from "./matcher/types.ts";
export { nextChunkSize, type ChunkOutcome, type ChunkPolicy } from "./sync/nextChunkSize.ts";
export { getBackoffDelay } from "./sync/getBackoffDelay.ts";
export { coalesceRuns, type CoalescedRuns } from "./sync/coalesceRuns.ts";
export {
  computeRollups,
  type EntityBucketDelta,
  type EntityTokenBucketDelta,
  type EntityTotalDelta,
  type LedgerBucketDelta,
  type LedgerTokenBucketDelta,
  type ProviderBucketDelta,
  type ProviderTokenBucketDelta,
  type ProviderTotalDelta,
  type RollupDeltas,
  type RollupGrain,
} from "./rollups/computeRollups.ts";
export {
  ENTITY_ID,
  REGISTRY_V2,
  REGISTRY_V3,
  entityKind,
  parseRegistry,
  type Registry,
  type RegistryClientLabel,
  type RegistryEntity,
  type RegistryEscrow,
  type RegistryServerId,
  type RegistrySettlementEvent,
  type RegistryToken,
} from "./registry/parseRegistry.ts";
export { mppFingerprint } from "./registry/mppFingerprint.ts";
export { evaluateFilter } from "./webhooks/evaluateFilter.ts";
export { computeSignature, signPayload } from "./webhooks/signPayload.ts";
export { verifyWebhook, WebhookVerificationError, type VerifiedWebhook } from "./webhooks/verifyWebhook.ts";
export { getRetryDelay, MAX_ATTEMPTS, RETRY_SCHEDULE_MS } from "./webhooks/getRetryDelay.ts";
export { parseRetryAfter } from "./http/parseRetryAfter.ts";
export { parseRecoverSince, RECOVER_MAX_AGE_MS, RecoverSinceError } from "./webhooks/parseRecoverSince.ts";
export { classifyOutcome, type AttemptOutcome, type AttemptResult } from "./webhooks/classifyOutcome.ts";
export {
  MAX_CONSECUTIVE_FAILURES,
  VERIFY_TOKEN_TTL_MS,
  SubscriptionTransitionError,
  transitionSubscription,
  type SubscriptionState,
  type SubscriptionTrigger,
} from "./webhooks/subscriptionMachine.ts";
export { planAfterAttempt, type AttemptPlan } from "./webhooks/planAfterAttempt.ts";
export {
  DELIVERY_STATUSES,
  SUBSCRIPTION_STATUSES,
  type DeliveryStatus,
  type FilterableEvent,
  type SubscriptionStatus,
  type WebhookFilter,
} from "./webhooks/types.ts";
export { SecretBoxError, generateToken, hashToken, openSecret, parseMasterKey, sealSecret } from "./secrets/secretBox.ts";
export { isForbiddenAddress } from "./net/isForbiddenAddress.ts";
export { HostNotPublicError, resolvePublicAddresses, type HostLookup, type HostRefusal } from "./net/resolvePublicAddresses.ts";
export { clientRateKey } from "./net/clientRateKey.ts";
export * from "./wallet/index.ts";
