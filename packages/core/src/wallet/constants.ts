/** RFC 8628 §6.1 user-code alphabet: 20 consonants, no vowels (no words), no easily confused letters. */
export const DEVICE_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
/** Characters in a device code (shown as XXXX-XXXX): 20^8 ≈ 2^34.6 codes. */
export const DEVICE_CODE_LENGTH = 8;
/** A pairing is pending for 5 minutes (spec §8). */
export const PAIRING_TTL_MS = 5 * 60_000;
/** The interval a device must keep between polls. */
export const POLL_INTERVAL_SECONDS = 5;
/** Session lifetime bounds accepted by approve-init. */
export const MIN_SESSION_TTL_SECONDS = 60;
export const MAX_SESSION_TTL_SECONDS = 30 * 24 * 3600;
/** A TIP-20 memo is one bytes32. */
export const MEMO_BYTES = 32;
/** The AccountKeychain precompile on Tempo. */
export const ACCOUNT_KEYCHAIN_ADDRESS = "0xaaaaaaaa00000000000000000000000000000000";
