/**
 * WebAuthn signature counter rule: the counter must increase, except for authenticators that always report
 * 0 (many synced passkeys). A non-increasing non-zero counter suggests a cloned authenticator.
 */
export function checkSignCounter(stored: bigint, received: bigint): boolean {
  if (stored === 0n && received === 0n) return true;
  return received > stored;
}
