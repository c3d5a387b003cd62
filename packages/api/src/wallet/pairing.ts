import type { IncomingMessage } from "node:http";
import { randomBytes } from "node:crypto";
import {
  PAIRING_TTL_MS,
  decidePoll,
  formatDeviceCode,
  generateDeviceCode,
  generateToken,
  hashToken,
  normalizeDeviceCode,
  reportPairingStatus,
} from "@agent-ledger/core";
import type { WalletContext, WalletResponse } from "./context.ts";
import { requireUser } from "./userSession.ts";
import { WalletError } from "./WalletError.ts";

/** An expired pairing nobody approve-init'ed is kept this long (then deleted by the next device/start). */
export const UNCLAIMED_PAIRING_KEEP_MS = 24 * 3600_000;
/** Timer jitter allowed between polls. */
const POLL_TOLERANCE_MS = 500;

/** POST device/start `{ agent_label? }` (walletInputs.ts START_PAIRING_BODY) → a pending pairing (5 minutes). Rate-limited per client address (createWalletHandler). */
export async function startPairing(ctx: WalletContext, { agentLabel }: { agentLabel: string | null }): Promise<WalletResponse> {
  const now = ctx.now();
  // housekeeping (docs/wallet.md § Rate limits): pairings nobody approved are deleted a day after they expired (poll
  // answers `expired` until then, 404 after); approve-init'ed ones stay with their session
  await ctx.db.query("DELETE FROM device_pairings WHERE expires_at < $1 AND status = 'pending' AND user_id IS NULL", [
    new Date(now.getTime() - UNCLAIMED_PAIRING_KEEP_MS),
  ]);
  const deviceId = generateToken("dev_", 32);
  const expiresAt = new Date(now.getTime() + PAIRING_TTL_MS);
  for (let attempt = 0; ; attempt++) {
    const code = generateDeviceCode(randomBytes);
    try {
      const { rows } = await ctx.db.query(
        "INSERT INTO device_pairings (code, device_id_hash, agent_label, status, expires_at, poll_interval_seconds) VALUES ($1, $2, $3, 'pending', $4, $5) RETURNING id",
        [code, hashToken(deviceId), agentLabel, expiresAt, ctx.config.pollIntervalSeconds],
      );
      const shown = formatDeviceCode(code);
      return {
        body: {
          code: shown,
          device_id: deviceId,
          approve_url: `${ctx.config.publicBaseUrl}/approve?code=${shown}`,
          expires_at: expiresAt.toISOString(),
          poll_interval_seconds: ctx.config.pollIntervalSeconds,
          pairing_id: rows[0].id,
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== "23505" || attempt >= 5) throw error; // code collision: draw another
    }
  }
}

interface PollRow {
  id: string;
  status: string;
  expires_at: Date;
  poll_interval_seconds: number;
  last_polled_at: Date | null;
}

/** GET device/poll?device_id= (walletInputs.ts POLL_QUERY) → status; the first poll that sees `approved` mints the bearer (exactly once). */
export async function pollPairing(ctx: WalletContext, deviceId: string): Promise<WalletResponse> {
  const now = ctx.now();
  const { rows } = await ctx.db.query<PollRow>(
    "SELECT id, status, expires_at, poll_interval_seconds, last_polled_at FROM device_pairings WHERE device_id_hash = $1",
    [hashToken(deviceId)],
  );
  const p = rows[0];
  if (!p) throw new WalletError("not_found", "unknown device_id");
  const interval = ctx.config.pollIntervalSeconds > 0 ? p.poll_interval_seconds : 0;
  const decision = decidePoll(p.last_polled_at, interval, now, POLL_TOLERANCE_MS);
  if (!decision.ok) {
    throw new WalletError("slow_down", `poll at most every ${interval} s`, { "retry-after": String(decision.retryAfterSeconds) });
  }
  if (interval > 0) {
    // one poll per interval even when several arrive at once: only the one that moves last_polled_at proceeds
    const threshold = new Date(now.getTime() - interval * 1000 + POLL_TOLERANCE_MS);
    const moved = await ctx.db.query("UPDATE device_pairings SET last_polled_at = $2 WHERE id = $1 AND (last_polled_at IS NULL OR last_polled_at <= $3)", [
      p.id,
      now,
      threshold,
    ]);
    if (moved.rowCount === 0) throw new WalletError("slow_down", `poll at most every ${interval} s`, { "retry-after": String(interval) });
  }
  const status = reportPairingStatus({ status: p.status, expiresAt: new Date(p.expires_at) }, now);
  if (status !== "approved") return { body: { status } };

  // Mint: one statement flips approved → claimed and stores the bearer hash; a racing poll finds nothing to flip.
  const accessToken = generateToken("alt_", 32);
  const minted = await ctx.db.query(
    `WITH claimed AS (
       UPDATE device_pairings SET status = 'claimed', claimed_at = $3 WHERE id = $1 AND status = 'approved' RETURNING id
     )
     UPDATE wallet_sessions s SET bearer_token_hash = $2
       FROM claimed, wallet_users u
      WHERE s.pairing_id = claimed.id AND u.id = s.user_id
     RETURNING s.id, s.expires_at, s.agent_key_address, s.spend_cap_wei::text AS spend_cap_wei, s.per_call_cap_wei::text AS per_call_cap_wei,
               s.token_address, u.managed_address`,
    [p.id, hashToken(accessToken), now],
  );
  const s = minted.rows[0];
  if (!s) return { body: { status: "claimed" } };
  return {
    body: {
      status: "approved",
      access_token: accessToken,
      token_type: "Bearer",
      session_id: s.id,
      expires_at: new Date(s.expires_at).toISOString(),
      agent_key_address: s.agent_key_address,
      managed_address: s.managed_address,
      spend_cap_wei: s.spend_cap_wei,
      per_call_cap_wei: s.per_call_cap_wei,
      token: s.token_address,
    },
  };
}

/** GET device/lookup?code= (cookie) → what the approval page shows. Code entry is rate-limited per client address and per user. */
export async function lookupPairing(ctx: WalletContext, req: IncomingMessage, url: URL): Promise<WalletResponse> {
  const user = await requireUser(ctx, req);
  await ctx.limits.consume("codeUser", user.id);
  const now = ctx.now();
  const code = normalizeDeviceCode(url.searchParams.get("code"));
  if (!code) throw new WalletError("invalid_code", "code must look like XXXX-XXXX (letters BCDFGHJKLMNPQRSTVWXZ)");
  const { rows } = await ctx.db.query("SELECT code, agent_label, status, expires_at FROM device_pairings WHERE code = $1", [code]);
  const p = rows[0];
  if (!p) throw new WalletError("code_not_found", "no pairing has this code");
  const status = reportPairingStatus({ status: p.status, expiresAt: new Date(p.expires_at) }, now);
  if (status === "expired") throw new WalletError("code_expired", "this code has expired: start pairing again from the CLI");
  return { body: { code: formatDeviceCode(p.code), agent_label: p.agent_label, status, expires_at: new Date(p.expires_at).toISOString() } };
}
