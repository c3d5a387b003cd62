export {
  ACCOUNT_KEYCHAIN_ADDRESS,
  DEVICE_CODE_ALPHABET,
  DEVICE_CODE_LENGTH,
  MAX_SESSION_TTL_SECONDS,
  MEMO_BYTES,
  MIN_SESSION_TTL_SECONDS,
  PAIRING_TTL_MS,
  POLL_INTERVAL_SECONDS,
} from "./constants.ts";
export { generateDeviceCode } from "./generateDeviceCode.ts";
export { formatDeviceCode } from "./formatDeviceCode.ts";
export { normalizeDeviceCode } from "./normalizeDeviceCode.ts";
export { reportPairingStatus, type ReportedPairingStatus, type StoredPairingStatus } from "./reportPairingStatus.ts";
export { sessionStatus, type WalletSessionStatus } from "./sessionStatus.ts";
export { checkPaymentCaps, type CapViolation } from "./checkPaymentCaps.ts";
export { parsePositiveWei } from "./parsePositiveWei.ts";
export { encodeMemo, type EncodedMemo } from "./encodeMemo.ts";
export { parseGrant, type Grant, type GrantResult } from "./parseGrant.ts";
export { checkSignCounter } from "./checkSignCounter.ts";
export { decidePoll, type PollDecision } from "./decidePoll.ts";
export { passkeyAddress } from "./passkeyAddress.ts";
export { verifyAuthorizationReceipt, type AuthorizationCheck, type AuthorizationRefusal, type ReceiptLike } from "./verifyAuthorizationReceipt.ts";
export { checkSponsorship, type SponsorCandidate, type SponsorExpectation } from "./checkSponsorship.ts";
export { checkRevokeSponsorship, type RevokeExpectation } from "./checkRevokeSponsorship.ts";
export { classifySendError, REFUSAL_CODES, type SendErrorClass } from "./classifySendError.ts";
export { parseIdempotencyKey, IDEMPOTENCY_KEY_MAX_LENGTH } from "./parseIdempotencyKey.ts";
