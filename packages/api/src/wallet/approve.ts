import type { IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import {
  ACCOUNT_KEYCHAIN_ADDRESS,
  formatDeviceCode,
  isAddress,
  normalizeDeviceCode,
  parseGrant,
  reportPairingStatus,
  sealSecret,
  verifyAuthorizationReceipt,
} from "@agent-ledger/core";
import type { Hash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { WalletContext, WalletResponse } from "./context.ts";
import { readJsonObject } from "../http/readBody.ts";
import { requireUser } from "./userSession.ts";
import { WalletError } from "./WalletError.ts";
import { inTransaction } from "@agent-ledger/db";

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

interface PairingRow {
  id: string;
  code: string;
  agent_label: string | null;
  status: string;
  expires_at: Date;
  user_id: string | null;
}

const codeExpired = () => new WalletError("code_expired", "this code has expired: start pairing again from the CLI");

function parseCode(value: unknown): string {
  const code = normalizeDeviceCode(value);
  if (!code) throw new WalletError("invalid_code", "code must look like XXXX-XXXX (letters BCDFGHJKLMNPQRSTVWXZ)");
  return code;
}

/** Refusals shared by init and finalize, in order: unknown, already approved, taken by someone else. */
function checkPairing(p: PairingRow | undefined, userId: string): asserts p is PairingRow {
  if (!p) throw new WalletError("code_not_found", "no pairing has this code");
  if (p.status === "approved" || p.status === "claimed") throw new WalletError("already_approved", "this pairing was already approved");
  if (p.user_id && p.user_id !== userId) throw new WalletError("pairing_taken", "another account is approving this pairing");
}

/**
 * POST device/approve-init (cookie) `{ code, spend_cap_wei, per_call_cap_wei, session_ttl_seconds, token? }`: generates the
 * agent key, seals it (context = session id) in a not-yet-authorized wallet session, returns what the page needs to
 * authorize it on chain. The private key is in this response only.
 */
export async function approveInit(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  const user = await requireUser(ctx, req);
  await ctx.limits.consume("codeUser", user.id);
  const body = await readJsonObject(req);
  const code = parseCode(body.code);
  const parsed = parseGrant(body);
  if (!parsed.ok) throw new WalletError(parsed.code, parsed.message);
  const { grant } = parsed;
  let token = ctx.config.defaultToken;
  if (body.token !== undefined && body.token !== null) {
    if (!isAddress(body.token)) throw new WalletError("invalid_address", "token must be an address (0x + 40 hex)");
    token = body.token.toLowerCase() as `0x${string}`;
  }
  const masterKey = ctx.config.masterKey;
  if (!masterKey) throw new WalletError("not_configured", "the wallet has no master key (SECRETS_MASTER_KEY)");
  const chainId = await ctx.chain.chainId();
  const now = ctx.now();

  const agentPrivateKey = generatePrivateKey();
  const agentAddress = privateKeyToAccount(agentPrivateKey).address.toLowerCase();
  const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + grant.ttlSeconds * 1000);

  const { sessionId, pairing } = await inTransaction(ctx.db, async (client) => {
    const { rows } = await client.query<PairingRow>(
      "SELECT id, code, agent_label, status, expires_at, user_id FROM device_pairings WHERE code = $1 FOR UPDATE",
      [code],
    );
    const p = rows[0];
    checkPairing(p, user.id);
    if (reportPairingStatus({ status: p.status, expiresAt: new Date(p.expires_at) }, now) === "expired") throw codeExpired();
    await client.query("UPDATE device_pairings SET user_id = $2 WHERE id = $1", [p.id, user.id]);
    const existing = await client.query<{ id: string }>("SELECT id FROM wallet_sessions WHERE pairing_id = $1", [p.id]);
    const sessionId = existing.rows[0]?.id ?? randomUUID();
    const sealed = sealSecret(agentPrivateKey, masterKey, sessionId);
    await client.query(
      `INSERT INTO wallet_sessions (id, user_id, pairing_id, agent_label, agent_key_address, agent_key_ciphertext, token_address, spend_cap_wei, per_call_cap_wei, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (pairing_id) DO UPDATE SET agent_key_address = EXCLUDED.agent_key_address, agent_key_ciphertext = EXCLUDED.agent_key_ciphertext,
         token_address = EXCLUDED.token_address, spend_cap_wei = EXCLUDED.spend_cap_wei, per_call_cap_wei = EXCLUDED.per_call_cap_wei, expires_at = EXCLUDED.expires_at`,
      [sessionId, user.id, p.id, p.agent_label, agentAddress, sealed, token, grant.spendCap.toString(), grant.perCallCap.toString(), expiresAt],
    );
    return { sessionId, pairing: p };
  });
  ctx.log.info({ pairingId: pairing.id, sessionId, userId: user.id, agentKeyAddress: agentAddress }, "wallet: approval initialized");
  return {
    body: {
      pairing_id: pairing.id,
      session_id: sessionId,
      credential_id: user.credential_id,
      public_key_uncompressed: user.public_key_hex,
      managed_address: user.managed_address,
      agent_key_address: agentAddress,
      agent_private_key: agentPrivateKey,
      chain: { id: chainId, rpc_url: ctx.config.publicRpcUrl ?? null, relay_url: `${ctx.config.publicBaseUrl}/api/wallet/relay` },
      account_keychain_address: ACCOUNT_KEYCHAIN_ADDRESS,
      expiry_unix: Math.floor(expiresAt.getTime() / 1000),
      token,
      spend_cap_wei: grant.spendCap.toString(),
      per_call_cap_wei: grant.perCallCap.toString(),
      agent_label: pairing.agent_label,
    },
  };
}

/**
 * POST device/approve-finalize (cookie) `{ code, tx_hash }`: waits (bounded) for the receipt and accepts only a
 * successful transaction from the user's managed address whose AccountKeychain log is KeyAuthorized{user, agent key}.
 */
export async function approveFinalize(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  const user = await requireUser(ctx, req);
  await ctx.limits.consume("codeUser", user.id);
  const body = await readJsonObject(req);
  const code = parseCode(body.code);
  if (typeof body.tx_hash !== "string" || !TX_HASH.test(body.tx_hash)) throw new WalletError("invalid_tx_hash", "tx_hash must be 0x + 64 hex characters");
  const txHash = body.tx_hash.toLowerCase() as Hash;

  const { rows } = await ctx.db.query<PairingRow & { session_id: string | null; agent_key_address: string | null }>(
    `SELECT p.id, p.code, p.agent_label, p.status, p.expires_at, p.user_id, s.id AS session_id, s.agent_key_address
       FROM device_pairings p LEFT JOIN wallet_sessions s ON s.pairing_id = p.id WHERE p.code = $1`,
    [code],
  );
  const p = rows[0];
  checkPairing(p, user.id);
  if (!p.session_id || !p.agent_key_address || p.user_id !== user.id) throw new WalletError("not_initialized", "call approve-init for this code first");
  // One rule with poll (spec §3: pending → approved, pending → expired, never expired → approved): a pairing that poll
  // reports `expired` is refused here, before the receipt wait and again when the approval is written.
  if (reportPairingStatus({ status: p.status, expiresAt: new Date(p.expires_at) }, ctx.now()) === "expired") throw codeExpired();

  const receipt = await ctx.chain.waitForReceipt(txHash, ctx.config.receiptTimeoutMs);
  if (!receipt) throw new WalletError("tx_not_found", `no receipt for ${txHash} within ${Math.round(ctx.config.receiptTimeoutMs / 1000)} s`);
  const check = verifyAuthorizationReceipt(receipt, { account: user.managed_address, agentKey: p.agent_key_address });
  if (!check.ok) throw new WalletError("authorization_not_verified", `${check.reason}: ${check.message}`);
  const authorizedAt = (await ctx.chain.blockTimestamp(receipt.blockNumber)) ?? ctx.now();

  await inTransaction(ctx.db, async (client) => {
    const locked = await client.query<{ status: string; expires_at: Date }>("SELECT status, expires_at FROM device_pairings WHERE id = $1 FOR UPDATE", [p.id]);
    const current = locked.rows[0];
    if (!current || current.status !== "pending") throw new WalletError("already_approved", "this pairing was already approved");
    // the receipt wait may have outlasted the pairing: expired by now is expired (what poll reports from this instant on)
    if (reportPairingStatus({ status: current.status, expiresAt: new Date(current.expires_at) }, ctx.now()) === "expired") throw codeExpired();
    await client.query("UPDATE device_pairings SET status = 'approved', authorize_tx_hash = $2, on_chain_authorized_at = $3 WHERE id = $1 AND user_id = $4", [
      p.id,
      txHash,
      authorizedAt,
      user.id,
    ]);
    const session = await client.query(
      "UPDATE wallet_sessions SET authorize_tx_hash = $2, on_chain_authorized_at = $3 WHERE pairing_id = $1 AND agent_key_address = $4",
      [p.id, txHash, authorizedAt, p.agent_key_address],
    );
    // approve-init replaced the key meanwhile: this transaction authorized a key that is no longer the session's
    if (session.rowCount === 0)
      throw new WalletError("authorization_not_verified", "other_key_authorized: the session's agent key changed; authorize the new key");
  });
  ctx.log.info({ pairingId: p.id, sessionId: p.session_id, txHash }, "wallet: pairing approved");
  return {
    body: {
      status: "approved",
      pairing_id: p.id,
      session_id: p.session_id,
      code: formatDeviceCode(p.code),
      authorize_tx_hash: txHash,
      on_chain_authorized_at: authorizedAt.toISOString(),
    },
  };
}
