import { openSecret } from "@agent-ledger/core";
import type { Hex } from "viem";
import { privateKeyToAccount, sign } from "viem/accounts";
import { Account } from "viem/tempo";
import type pg from "pg";
import { createTtlCache } from "../services/createTtlCache.ts";

type PublicKey = Parameters<typeof Account.from>[0]["publicKey"];

/**
 * What signing a payment needs from a session, none of which changes once its bearer token is minted (the token hash
 * is written once, when the pairing is claimed; the key, the person's account and the token never change): the
 * session id, its sealed agent key, the agent key's public key, the person's account and the session's token. State
 * (revoked, expired, authorized) and caps are NOT here: the reservation statement checks them on every payment.
 */
export interface SessionSigner {
  sessionId: string;
  sealedKey: string;
  /** null: no master key, or the sealed key does not open (signing then fails, and the payment with it). */
  publicKey: PublicKey | null;
  managedAddress: `0x${string}`;
  tokenAddress: `0x${string}`;
}

/**
 * Signers per bearer-token hash (createTtlCache, the API's one in-process cache; unknown tokens are not kept). Only
 * public data and the ciphertext are kept — never the decrypted key: each payment opens the sealed key (AES-GCM, a few
 * µs), signs and drops it, as before. What the cache saves is deriving the public key from the private key (a secp256k1
 * point multiplication, the costliest step of building the signing account) and a session lookup before signing.
 */
export function createSignerCache(ttlMs = 10 * 60_000, maxEntries = 10_000) {
  return createTtlCache<SessionSigner | null>(ttlMs, undefined, { maxEntries, keep: (s) => s !== null });
}

export type SignerCache = ReturnType<typeof createSignerCache>;

/** What loadSigner reads of the wallet context (context.ts holds a SignerCache: named here, not imported, so neither file imports the other). */
export interface SignerSource {
  db: pg.Pool;
  config: { masterKey: Buffer | null };
  signers: SignerCache;
}

/** The signer of the session whose bearer hash this is, or null (no such session). */
export function loadSigner(ctx: SignerSource, bearerHash: string): Promise<SessionSigner | null> {
  return ctx.signers.get(bearerHash, async () => {
    const { rows } = await ctx.db.query<{ id: string; agent_key_ciphertext: string; managed_address: string; token_address: string }>(
      "SELECT s.id, s.agent_key_ciphertext, s.token_address, u.managed_address FROM wallet_sessions s JOIN wallet_users u ON u.id = s.user_id WHERE s.bearer_token_hash = $1",
      [bearerHash],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      sessionId: r.id,
      sealedKey: r.agent_key_ciphertext,
      publicKey: publicKeyOf(ctx.config.masterKey, r.agent_key_ciphertext, r.id),
      managedAddress: r.managed_address as `0x${string}`,
      tokenAddress: r.token_address as `0x${string}`,
    };
  });
}

function publicKeyOf(masterKey: Buffer | null, sealed: string, sessionId: string): PublicKey | null {
  // Without a master key the wallet cannot pay (the reservation statement reports not_configured).
  if (!masterKey) return null;
  let privateKey: Hex;
  try {
    privateKey = openSecret(sealed, masterKey, sessionId) as Hex;
  } catch {
    return null; // the payment fails when it signs (signerAccount), as it did before this cache
  }
  const hex = privateKeyToAccount(privateKey).publicKey; // 0x04 ‖ x ‖ y
  return { prefix: 4, x: BigInt(`0x${hex.slice(4, 68)}`), y: BigInt(`0x${hex.slice(68)}`) } as PublicKey;
}

/**
 * The agent's access-key account for one payment: the sealed key is opened here and lives only in this account's
 * sign function (not kept after the payment). Same signatures as Account.fromSecp256k1 (RFC 6979, deterministic).
 */
export function signerAccount(s: SessionSigner, masterKey: Buffer) {
  if (!s.publicKey) throw new Error("the agent key could not be opened");
  const privateKey = openSecret(s.sealedKey, masterKey, s.sessionId) as Hex;
  return Account.from({
    access: s.managedAddress,
    keyType: "secp256k1",
    publicKey: s.publicKey,
    sign: async ({ hash }) => sign({ hash, privateKey, to: "hex" }),
  });
}
