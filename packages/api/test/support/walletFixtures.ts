import { randomBytes, randomUUID } from "node:crypto";
import { generateToken, hashToken } from "@agent-ledger/core";
import pg from "pg";

export interface TestUser {
  userId: string;
  /** A paired wallet session's bearer token. */
  bearer: string;
  walletSessionId: string;
  /** The passkey user-session cookie value. */
  cookie: string;
}

/**
 * A wallet user with a paired (bearer) session and a browser (cookie) session, written the way the
 * wallet surface stores them: only SHA-256 hashes of the tokens.
 */
export async function createTestUser(databaseUrl: string, options: { sessionExpiresAt?: Date; revoked?: boolean } = {}): Promise<TestUser> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const userId = randomUUID();
    const bearer = generateToken("alt_");
    const cookie = generateToken("");
    const address = `0x${randomBytes(20).toString("hex")}`;
    await c.query("INSERT INTO wallet_users (id, credential_id, cose_public_key, public_key_hex, managed_address) VALUES ($1, $2, $3, $4, $5)", [
      userId,
      randomBytes(16).toString("base64url"),
      randomBytes(77),
      `0x04${randomBytes(64).toString("hex")}`,
      address,
    ]);
    const pairingId = randomUUID();
    await c.query(
      "INSERT INTO device_pairings (id, code, device_id_hash, status, expires_at, user_id) VALUES ($1, $2, $3, 'claimed', now() + interval '5 minutes', $4)",
      [pairingId, randomBytes(4).toString("hex").toUpperCase(), hashToken(randomUUID()), userId],
    );
    const walletSessionId = randomUUID();
    await c.query(
      `INSERT INTO wallet_sessions (id, user_id, pairing_id, bearer_token_hash, agent_key_address, agent_key_ciphertext, token_address,
         spend_cap_wei, per_call_cap_wei, expires_at, revoked_at, on_chain_authorized_at)
       VALUES ($1, $2, $3, $4, $5, 'sealed', '0x20c0000000000000000000000000000000000000', 1000000, 100000, $6, $7, now())`,
      [
        walletSessionId,
        userId,
        pairingId,
        hashToken(bearer),
        `0x${randomBytes(20).toString("hex")}`,
        options.sessionExpiresAt ?? new Date(Date.now() + 3600_000),
        options.revoked ? new Date() : null,
      ],
    );
    await c.query("INSERT INTO user_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, now() + interval '30 minutes')", [hashToken(cookie), userId]);
    return { userId, bearer, walletSessionId, cookie };
  } finally {
    await c.end();
  }
}
