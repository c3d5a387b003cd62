import { MPP_MEMO_TAG, MPP_MEMO_VERSION } from "./constants.ts";

/** The fields of an MPP attribution memo that the ledger reads (methodology v0.3, rule 1). */
export interface MppMemo {
  /** keccak256(server id, i.e. the challenge realm)[0..9]: `0x` + 20 lowercase hex. */
  serverId: string;
  /** keccak256(client id)[0..9]: `0x` + 20 lowercase hex; null for an anonymous client (10 zero bytes). */
  clientId: string | null;
  /** keccak256(challenge id)[0..6]: `0x` + 14 lowercase hex. */
  nonce: string;
}

const BYTES32 = /^0x[0-9a-f]{64}$/;
const ANONYMOUS = "0".repeat(20);

/**
 * Reads a TransferWithMemo memo (bytes32) as an MPP attribution memo (mppx `src/tempo/Attribution.ts`): bytes 0..3
 * tag `ef1ed712`, byte 4 version `01`, 5..14 serverId, 15..24 clientId (all zero = anonymous), 25..31 nonce.
 * Anything else — another tag or version, not exactly 32 bytes of hex, no memo — is not an MPP memo: null.
 */
export function parseMppMemo(memo: string | null): MppMemo | null {
  if (memo === null) return null;
  const m = memo.toLowerCase();
  if (!BYTES32.test(m) || !m.startsWith(MPP_MEMO_TAG) || m.slice(10, 12) !== MPP_MEMO_VERSION) return null;
  const client = m.slice(32, 52);
  return { serverId: `0x${m.slice(12, 32)}`, clientId: client === ANONYMOUS ? null : `0x${client}`, nonce: `0x${m.slice(52, 66)}` };
}
