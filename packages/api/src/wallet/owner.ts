import type { IncomingMessage } from "node:http";
import { ACCOUNT_KEYCHAIN_ADDRESS, isPlainText, sessionStatus } from "@agent-ledger/core";
import { decodeEventLog, type Hash, type Hex } from "viem";
import { Abis } from "viem/tempo";
import type { WalletContext, WalletResponse } from "./context.ts";
import { requireUser, type WalletUserRow } from "./userSession.ts";
import { WalletError } from "./WalletError.ts";
import { remainingWei, SESSION_ROW_COLUMNS, type SessionRow } from "./bearer.ts";

// The owner's console (docs/wallet.md § Owner console): the signed-in passkey owner (cookie) lists their agent
// sessions with usage, reads each session's payments, reads the account's balances, and revokes sessions — at once in
// our database (pay's reservation statement checks revoked_at under the row lock it takes for the caps) and on chain
// (the passkey signs the AccountKeychain's revokeKey, sponsored by the relay; confirmRevoke reads the keychain).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
export type OwnerSessionStatus = "active" | "expired" | "revoked" | "pending";
export type ChainRevokeStatus = "pending" | "confirmed" | "failed";

interface OwnerSessionRow extends SessionRow {
  revoked_by: string | null;
  chain_revoke_status: ChainRevokeStatus | null;
  chain_revoke_tx_hash: string | null;
  chain_revoke_error: string | null;
  chain_revoke_updated_at: Date | null;
  payments_count: string;
  last_id: string | null;
  last_created_at: Date | null;
  last_to: string | null;
  last_amount_wei: string | null;
  last_status: string | null;
  last_tx_hash: string | null;
}

/** The signed-in owner (the `al_session` cookie's passkey user): what every owner operation needs of them. */
export type OwnerUser = Pick<WalletUserRow, "id" | "managed_address" | "credential_id" | "public_key_hex">;

const OWNER_SESSION_SELECT = `
  SELECT ${SESSION_ROW_COLUMNS}, s.revoked_by, s.chain_revoke_status, s.chain_revoke_tx_hash, s.chain_revoke_error, s.chain_revoke_updated_at,
         (SELECT count(*) FROM wallet_payments c WHERE c.session_id = s.id)::text AS payments_count,
         lp.id AS last_id, lp.created_at AS last_created_at, lp.to_address AS last_to, lp.amount_wei::text AS last_amount_wei,
         lp.status AS last_status, lp.tx_hash AS last_tx_hash
    FROM wallet_sessions s
    LEFT JOIN LATERAL (SELECT id, created_at, to_address, amount_wei, status, tx_hash FROM wallet_payments p
                        WHERE p.session_id = s.id ORDER BY p.created_at DESC, p.id DESC LIMIT 1) lp ON true`;

function txUrl(ctx: WalletContext, hash: string | null): string | null {
  if (!hash) return null;
  return `${ctx.config.explorerBaseUrl ?? ctx.config.publicBaseUrl}/tx/${hash}`;
}

/** The owner's view of a session at `now`: caps, spent, remaining (exact decimal strings), status, the on-chain revoke step, the last payment. */
export function ownerSessionView(ctx: WalletContext, s: OwnerSessionRow, now: Date) {
  const st = sessionStatus({ expiresAt: new Date(s.expires_at), revokedAt: s.revoked_at, onChainAuthorizedAt: s.on_chain_authorized_at }, now);
  const status: OwnerSessionStatus = st === "not_authorized" ? "pending" : st;
  return {
    session_id: s.id,
    agent_label: s.agent_label,
    agent_key_address: s.agent_key_address,
    token: s.token_address,
    status,
    created_at: iso(s.created_at),
    expires_at: iso(s.expires_at),
    spend_cap_wei: s.spend_cap_wei,
    per_call_cap_wei: s.per_call_cap_wei,
    spend_used_wei: s.spend_used_wei,
    spend_reserved_wei: s.spend_reserved_wei,
    spend_remaining_wei: remainingWei(s),
    on_chain_authorized_at: iso(s.on_chain_authorized_at),
    authorize_tx_hash: s.authorize_tx_hash,
    revoked_at: iso(s.revoked_at),
    revoked_by: s.revoked_by ?? (s.revoked_at ? "agent" : null),
    chain_revoke: {
      status: s.chain_revoke_status,
      tx_hash: s.chain_revoke_tx_hash,
      explorer_url: txUrl(ctx, s.chain_revoke_tx_hash),
      error: s.chain_revoke_error,
      updated_at: iso(s.chain_revoke_updated_at),
    },
    payments_count: Number(s.payments_count),
    last_payment: s.last_id
      ? { id: s.last_id, created_at: iso(s.last_created_at), to: s.last_to, amount_wei: s.last_amount_wei, status: s.last_status, tx_hash: s.last_tx_hash }
      : null,
  };
}
export type OwnerSessionView = ReturnType<typeof ownerSessionView>;

async function loadOwnerSessions(ctx: WalletContext, userId: string, ids?: readonly string[]): Promise<OwnerSessionRow[]> {
  const { rows } = await ctx.db.query<OwnerSessionRow>(
    `${OWNER_SESSION_SELECT} WHERE s.user_id = $1 AND ($2::uuid[] IS NULL OR s.id = ANY($2::uuid[])) ORDER BY s.created_at DESC, s.id DESC`,
    [userId, ids ?? null],
  );
  return rows;
}

function sessionIdOf(raw: string): string {
  const id = raw.toLowerCase();
  // Not a UUID cannot be one of the owner's sessions: the same 404 as another owner's id (nothing to tell apart).
  if (!UUID.test(id)) throw new WalletError("not_found", "no such session");
  return id;
}

async function loadOne(ctx: WalletContext, user: OwnerUser, rawId: string): Promise<OwnerSessionRow> {
  const [row] = await loadOwnerSessions(ctx, user.id, [sessionIdOf(rawId)]);
  if (!row) throw new WalletError("not_found", "no such session");
  return row;
}

/**
 * The owner operations, one implementation for REST (the handlers below, after requireUser) and GraphQL
 * (schema/WalletOwner.ts): each takes the signed-in owner and answers the REST body.
 */
export const ownerOps = {
  /** Every session of the owner, newest first, with usage and status. */
  async sessions(ctx: WalletContext, user: OwnerUser) {
    const now = ctx.now();
    const rows = await loadOwnerSessions(ctx, user.id);
    return { managed_address: user.managed_address, items: rows.map((r) => ownerSessionView(ctx, r, now)) };
  },
  /** One of the owner's sessions; another owner's id (or not an id) → not_found. */
  async session(ctx: WalletContext, user: OwnerUser, id: string) {
    return ownerSessionView(ctx, await loadOne(ctx, user, id), ctx.now());
  },
  payments: sessionPayments,
  balances,
  revoke,
  revokeAll,
  confirmRevoke,
};

/** GET /api/wallet/sessions (cookie): every session of the signed-in owner, newest first, with usage and status. */
export async function listOwnerSessions(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  return { body: await ownerOps.sessions(ctx, await requireUser(ctx, req)) };
}

/** GET /api/wallet/sessions/:id (cookie): one of the owner's sessions; another owner's id → 404. */
export async function getOwnerSession(ctx: WalletContext, req: IncomingMessage, id: string): Promise<WalletResponse> {
  return { body: await ownerOps.session(ctx, await requireUser(ctx, req), id) };
}

/** Opaque keyset cursor: the last row's created_at in microseconds since the epoch (exact) and its id. */
export function encodePaymentCursor(createdAtMicros: string, id: string): string {
  return Buffer.from(`${createdAtMicros}.${id}`, "utf8").toString("base64url");
}
export function decodePaymentCursor(cursor: string): { micros: string; id: string } | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const m = /^(\d{1,18})\.([0-9a-f-]{36})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!m || !UUID.test(m[2]!)) return null;
  return { micros: m[1]!, id: m[2]! };
}

/**
 * GET /api/wallet/sessions/:id/payments?limit=&cursor= (cookie): the session's payments, newest first (limit 1–100,
 * default 20), `next_cursor` null on the last page. Each: time, to, amount, token, memo, status, tx hash and link, error.
 */
export async function listOwnerSessionPayments(ctx: WalletContext, req: IncomingMessage, id: string, url: URL): Promise<WalletResponse> {
  const user = await requireUser(ctx, req);
  return { body: await sessionPayments(ctx, user, id, { limit: url.searchParams.get("limit"), cursor: url.searchParams.get("cursor") }) };
}

async function sessionPayments(ctx: WalletContext, user: OwnerUser, id: string, page: { limit: string | null; cursor: string | null }) {
  const session = await loadOne(ctx, user, id);
  const rawLimit = page.limit;
  let limit = 20;
  if (rawLimit !== null) {
    if (!/^[1-9]\d{0,2}$/.test(rawLimit) || Number(rawLimit) > 100) throw new WalletError("invalid_limit", "limit must be an integer 1–100");
    limit = Number(rawLimit);
  }
  const rawCursor = page.cursor;
  const cursor = rawCursor === null || rawCursor === "" ? null : decodePaymentCursor(rawCursor);
  if (rawCursor && !cursor) throw new WalletError("invalid_cursor", "cursor is not one this API returned");
  const { rows } = await ctx.db.query<{
    id: string;
    status: string;
    to_address: string;
    amount_wei: string;
    token_address: string;
    memo: string | null;
    tx_hash: string | null;
    error: string | null;
    created_at: Date;
    created_us: string;
  }>(
    `SELECT id, status, to_address, amount_wei::text AS amount_wei, token_address, memo, tx_hash, error, created_at,
            ((extract(epoch FROM created_at) * 1000000)::numeric(20,0))::text AS created_us
       FROM wallet_payments
      WHERE session_id = $1
        AND ($2::text IS NULL OR (created_at, id) < (timestamptz 'epoch' + ($2::text || ' microseconds')::interval, $3::uuid))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [session.id, cursor?.micros ?? null, cursor?.id ?? null, limit + 1],
  );
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    session_id: session.id,
    items: items.map((p) => ({
      id: p.id,
      created_at: iso(p.created_at),
      to: p.to_address,
      amount_wei: p.amount_wei,
      token: p.token_address,
      memo: p.memo,
      status: p.status,
      tx_hash: p.tx_hash,
      explorer_url: txUrl(ctx, p.tx_hash),
      error: p.error,
    })),
    next_cursor: rows.length > limit && last ? encodePaymentCursor(last.created_us, last.id) : null,
  };
}

/** GET /api/wallet/balances (cookie): the owner account's balance of the default token and of every session's token, read from the chain. */
export async function ownerBalances(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  return { body: await balances(ctx, await requireUser(ctx, req)) };
}

async function balances(ctx: WalletContext, user: OwnerUser) {
  const { rows } = await ctx.db.query<{ token_address: string }>("SELECT DISTINCT token_address FROM wallet_sessions WHERE user_id = $1", [user.id]);
  const tokens = [...new Set([ctx.config.defaultToken.toLowerCase(), ...rows.map((r) => r.token_address.toLowerCase())])];
  const client = await ctx.chain.client();
  const account = user.managed_address as `0x${string}`;
  try {
    const read = await Promise.all(
      tokens.map(async (token) => {
        const [balance, meta] = await Promise.all([
          client.readContract({ address: token as `0x${string}`, abi: Abis.tip20, functionName: "balanceOf", args: [account] }) as Promise<bigint>,
          client.token.getMetadata({ token: token as `0x${string}` }).catch(() => null),
        ]);
        return { token, symbol: meta?.symbol ?? null, decimals: meta?.decimals ?? 6, balance_wei: balance.toString() };
      }),
    );
    return { managed_address: user.managed_address, read_at: ctx.now().toISOString(), balances: read };
  } catch (error) {
    if (error instanceof WalletError) throw error;
    ctx.log.warn({ err: error }, "wallet: balance read failed");
    throw new WalletError("chain_unavailable", "the chain did not answer the balance read");
  }
}

/** What the page needs to sign the on-chain revoke with the passkey (through our relay, gas sponsored). */
async function revokeRequest(ctx: WalletContext, user: OwnerUser, rows: OwnerSessionRow[]) {
  const keys = rows.filter((r) => r.chain_revoke_status === "pending" || r.chain_revoke_status === "failed");
  if (keys.length === 0) return null;
  return {
    session_ids: keys.map((r) => r.id),
    agent_key_addresses: keys.map((r) => r.agent_key_address),
    account_keychain_address: ACCOUNT_KEYCHAIN_ADDRESS,
    managed_address: user.managed_address,
    credential_id: user.credential_id,
    public_key_uncompressed: user.public_key_hex,
    chain: { id: await ctx.chain.chainId(), rpc_url: ctx.config.publicRpcUrl ?? null, relay_url: `${ctx.config.publicBaseUrl}/api/wallet/relay` },
    token: ctx.config.defaultToken,
  };
}

/**
 * Revokes sessions of `userId` in one statement at `now`: revoked_at set (first time kept), revoked_by owner, and the
 * on-chain step marked pending when the key is authorized on chain, unexpired and not yet confirmed revoked.
 * pay's reservation (one UPDATE on the same row, `revoked_at IS NULL`) serializes with this: once it commits, no
 * new payment is reserved.
 */
async function revokeRows(ctx: WalletContext, userId: string, where: string, params: unknown[], now: Date): Promise<string[]> {
  const { rows } = await ctx.db.query<{ id: string }>(
    `UPDATE wallet_sessions SET revoked_at = COALESCE(revoked_at, $2), revoked_by = COALESCE(revoked_by, CASE WHEN revoked_at IS NULL THEN 'owner' ELSE 'agent' END),
            chain_revoke_status = CASE WHEN on_chain_authorized_at IS NOT NULL AND expires_at > $2 AND chain_revoke_status IS NULL THEN 'pending' ELSE chain_revoke_status END,
            chain_revoke_updated_at = CASE WHEN on_chain_authorized_at IS NOT NULL AND expires_at > $2 AND chain_revoke_status IS NULL THEN $2 ELSE chain_revoke_updated_at END
      WHERE user_id = $1 AND ${where} RETURNING id`,
    [userId, now, ...params],
  );
  return rows.map((r) => r.id);
}

/** POST /api/wallet/sessions/:id/revoke (cookie): stops the session now; answers the session and the on-chain revoke to sign (null when none is needed). */
export async function revokeOwnerSession(ctx: WalletContext, req: IncomingMessage, id: string): Promise<WalletResponse> {
  const user = await requireUser(ctx, req);
  return { body: await revoke(ctx, user, id) };
}

async function revoke(ctx: WalletContext, user: OwnerUser, id: string) {
  const sessionId = sessionIdOf(id);
  const now = ctx.now();
  const ids = await revokeRows(ctx, user.id, "id = $3", [sessionId], now);
  if (ids.length === 0) throw new WalletError("not_found", "no such session");
  const rows = await loadOwnerSessions(ctx, user.id, ids);
  ctx.log.info({ sessionId, userId: user.id }, "wallet: session revoked by its owner");
  return { sessions: rows.map((r) => ownerSessionView(ctx, r, now)), chain_revoke_request: await revokeRequest(ctx, user, rows) };
}

/**
 * POST /api/wallet/sessions/revoke-all (cookie): revokes every session of the owner that is not revoked and not
 * expired, and answers one on-chain request for every key whose on-chain revoke is pending or failed (a retry too).
 */
export async function revokeAllOwnerSessions(ctx: WalletContext, req: IncomingMessage): Promise<WalletResponse> {
  const user = await requireUser(ctx, req);
  return { body: await revokeAll(ctx, user) };
}

async function revokeAll(ctx: WalletContext, user: OwnerUser) {
  const now = ctx.now();
  await revokeRows(ctx, user.id, "revoked_at IS NULL AND expires_at > $2", [], now);
  const rows = (await loadOwnerSessions(ctx, user.id)).filter((r) => r.revoked_at !== null);
  ctx.log.info({ userId: user.id, sessions: rows.length }, "wallet: every session revoked by the owner");
  return { sessions: rows.map((r) => ownerSessionView(ctx, r, now)), chain_revoke_request: await revokeRequest(ctx, user, rows) };
}

/** KeyRevoked{account, publicKey} logs of the AccountKeychain in a receipt, lowercase keys of `account`. */
function revokedKeysIn(receipt: { logs: { address: string; topics: readonly Hex[]; data: Hex }[] }, account: string): Set<string> {
  const out = new Set<string>();
  for (const l of receipt.logs) {
    if (l.address.toLowerCase() !== ACCOUNT_KEYCHAIN_ADDRESS) continue;
    try {
      const ev = decodeEventLog({ abi: Abis.accountKeychain, topics: [...l.topics] as [Hex, ...Hex[]], data: l.data, strict: true });
      if (ev.eventName === "KeyRevoked" && ev.args.account.toLowerCase() === account.toLowerCase()) out.add(ev.args.publicKey.toLowerCase());
    } catch {
      // another event
    }
  }
  return out;
}

/** Reads the keychain: is `key` of `account` revoked on chain? null when the chain could not be read. */
async function keyRevokedOnChain(ctx: WalletContext, account: string, key: string): Promise<boolean | null> {
  try {
    const client = await ctx.chain.client();
    const r = (await client.readContract({
      address: ACCOUNT_KEYCHAIN_ADDRESS,
      abi: Abis.accountKeychain,
      functionName: "getKey",
      args: [account as `0x${string}`, key as `0x${string}`],
    })) as { isRevoked: boolean };
    return r.isRevoked;
  } catch (error) {
    ctx.log.warn({ err: error }, "wallet: keychain read failed");
    return null;
  }
}

/**
 * POST /api/wallet/sessions/revoke-confirm (cookie) `{ session_ids, tx_hash?, error? }`: records the outcome of the
 * on-chain revoke the page submitted. With `tx_hash`: waits (bounded) for the receipt; the step is `confirmed` for a
 * session only when the transaction succeeded, was sent by the owner's account, the keychain emitted
 * KeyRevoked{owner, agent key}, and reading the keychain afterwards says the key is revoked. Without it (the page
 * could not submit: prompt cancelled, relay refused…), `error` is recorded as the reason. Either way a key the
 * keychain already reports revoked is `confirmed`. A failed step keeps its reason; revoke again to retry.
 */
export async function confirmOwnerRevoke(ctx: WalletContext, req: IncomingMessage, body: Record<string, unknown>): Promise<WalletResponse> {
  const user = await requireUser(ctx, req);
  return { body: await confirmRevoke(ctx, user, body) };
}

async function confirmRevoke(ctx: WalletContext, user: OwnerUser, body: Record<string, unknown>) {
  const ids = body.session_ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100 || !ids.every((i) => typeof i === "string" && UUID.test(i.toLowerCase()))) {
    throw new WalletError("invalid_body", "session_ids must be 1–100 session ids");
  }
  let txHash: Hash | null = null;
  if (body.tx_hash !== undefined && body.tx_hash !== null) {
    if (typeof body.tx_hash !== "string" || !TX_HASH.test(body.tx_hash)) throw new WalletError("invalid_tx_hash", "tx_hash must be 0x + 64 hex characters");
    txHash = body.tx_hash.toLowerCase() as Hash;
  }
  let reported: string | null = null;
  if (body.error !== undefined && body.error !== null) {
    if (typeof body.error !== "string" || !isPlainText(body.error)) throw new WalletError("invalid_body", "error must be plain text");
    reported = body.error.slice(0, 300);
  }
  const rows = await loadOwnerSessions(ctx, user.id, [...new Set(ids.map((i) => (i as string).toLowerCase()))]);
  if (rows.length !== new Set(ids.map((i) => (i as string).toLowerCase())).size) throw new WalletError("not_found", "no such session");
  const open = rows.filter((r) => r.chain_revoke_status === "pending" || r.chain_revoke_status === "failed");

  let receiptReason: string | null = null;
  let revokedInTx = new Set<string>();
  if (txHash && open.length > 0) {
    await ctx.db.query(
      "UPDATE wallet_sessions SET chain_revoke_tx_hash = $3, chain_revoke_status = 'pending', chain_revoke_error = NULL, chain_revoke_updated_at = $4 WHERE user_id = $1 AND id = ANY($2::uuid[])",
      [user.id, open.map((r) => r.id), txHash, ctx.now()],
    );
    const receipt = await ctx.chain.waitForReceipt(txHash, ctx.config.receiptTimeoutMs);
    if (!receipt) receiptReason = `no receipt for ${txHash} within ${Math.round(ctx.config.receiptTimeoutMs / 1000)} s`;
    else if (receipt.status !== "success") receiptReason = "the revoke transaction reverted";
    else if (receipt.from.toLowerCase() !== user.managed_address.toLowerCase()) receiptReason = "the transaction was not sent by your account";
    else revokedInTx = revokedKeysIn(receipt, user.managed_address);
  }
  const now = ctx.now();
  for (const r of open) {
    const onChain = await keyRevokedOnChain(ctx, user.managed_address, r.agent_key_address);
    let status: ChainRevokeStatus;
    let reason: string | null = null;
    if (onChain === true) status = "confirmed";
    else {
      status = "failed";
      if (onChain === null) reason = "could not read the keychain to confirm the revoke";
      else if (txHash)
        reason =
          receiptReason ??
          (revokedInTx.has(r.agent_key_address.toLowerCase()) ? "the keychain still reports the key as valid" : "the transaction did not revoke this key");
      else reason = reported ?? "the revoke was not submitted";
    }
    await ctx.db.query(
      "UPDATE wallet_sessions SET chain_revoke_status = $3, chain_revoke_error = $4, chain_revoke_updated_at = $5, chain_revoke_tx_hash = COALESCE($6, chain_revoke_tx_hash) WHERE user_id = $1 AND id = $2",
      [user.id, r.id, status, reason, now, txHash],
    );
    ctx.log.info({ sessionId: r.id, status, reason }, "wallet: on-chain revoke recorded");
  }
  const after = await loadOwnerSessions(
    ctx,
    user.id,
    rows.map((r) => r.id),
  );
  return { sessions: after.map((r) => ownerSessionView(ctx, r, now)) };
}
