import type { IncomingMessage, ServerResponse } from "node:http";
import { checkRevokeSponsorship, checkSponsorship, type SponsorCandidate } from "@agent-ledger/core";
import type { WalletContext } from "./context.ts";
import { exceedsJsonDepth, readBodyText, tooDeep } from "../http/readBody.ts";

/** Only what a `withRelay` client sends to the relay (plus eth_chainId); the relay is not an open RPC proxy. */
const RELAY_METHODS = new Set(["eth_chainId", "eth_fillTransaction", "eth_signRawTransaction", "eth_sendRawTransaction", "eth_sendRawTransactionSync"]);
/** Gas ceiling of a sponsored authorization (anvil needs an explicit 2,000,000; the relay adds 20,000). */
export const MAX_SPONSORED_GAS = 3_000_000n;

/**
 * The sponsorship policy: the sender must be a registered managed address with a session that is approve-init'ed
 * but not yet authorized (pairing pending and unexpired, session not revoked), and the transaction must be exactly
 * the authorization of that session's agent key (core checkSponsorship); or the transaction must be exactly
 * revokeKey calls for agent keys of the sender's sessions that its owner revoked in our database and whose on-chain
 * revoke is pending or failed (core checkRevokeSponsorship; docs/wallet.md § Owner console).
 */
export function createSponsorValidator(ctx: WalletContext) {
  return async (tx: SponsorCandidate & { from?: string }): Promise<boolean> => {
    try {
      if (!tx.from) return false;
      const chainId = await ctx.chain.chainId();
      const now = ctx.now();
      const revocable = await ctx.db.query<{ agent_key_address: string }>(
        `SELECT s.agent_key_address FROM wallet_users u JOIN wallet_sessions s ON s.user_id = u.id
          WHERE u.managed_address = $1 AND s.revoked_at IS NOT NULL AND s.on_chain_authorized_at IS NOT NULL
            AND s.chain_revoke_status IN ('pending', 'failed')`,
        [tx.from.toLowerCase()],
      );
      const revokeReason = checkRevokeSponsorship(tx, { revocableKeys: revocable.rows.map((r) => r.agent_key_address), chainId, maxGas: MAX_SPONSORED_GAS });
      if (revokeReason === null) {
        ctx.log.info({ sender: tx.from.toLowerCase() }, "wallet relay: sponsoring the owner's key revocation");
        return true;
      }
      const { rows } = await ctx.db.query<{ agent_key_address: string; token_address: string; spend_cap_wei: string; expires_at: Date; session_id: string }>(
        `SELECT s.id AS session_id, s.agent_key_address, s.token_address, s.spend_cap_wei::text AS spend_cap_wei, s.expires_at
           FROM wallet_users u
           JOIN wallet_sessions s ON s.user_id = u.id
           JOIN device_pairings p ON p.id = s.pairing_id
          WHERE u.managed_address = $1 AND s.on_chain_authorized_at IS NULL AND s.revoked_at IS NULL
            AND p.status = 'pending' AND p.expires_at > $2`,
        [tx.from.toLowerCase(), now],
      );
      const reasons: string[] = [];
      for (const s of rows) {
        const reason = checkSponsorship(tx, {
          agentKey: s.agent_key_address,
          chainId,
          token: s.token_address,
          spendCap: BigInt(s.spend_cap_wei),
          expiryUnix: Math.floor(new Date(s.expires_at).getTime() / 1000),
          maxGas: MAX_SPONSORED_GAS,
        });
        if (reason === null) {
          ctx.log.info({ sender: tx.from.toLowerCase(), sessionId: s.session_id }, "wallet relay: sponsoring key authorization");
          return true;
        }
        reasons.push(reason);
      }
      ctx.log.warn(
        { sender: tx.from.toLowerCase(), reasons: [...(rows.length ? reasons : ["no pending approval for this sender"]), `revoke: ${revokeReason}`] },
        "wallet relay: sponsorship refused",
      );
      return false;
    } catch (error) {
      ctx.log.error({ err: error }, "wallet relay: validation failed");
      return false;
    }
  };
}

function rpcError(res: ServerResponse, id: unknown, code: number, message: string): void {
  const text = JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message } });
  res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), "cache-control": "no-store" });
  res.end(text);
}

/** POST /api/wallet/relay: viem Relay with a fee-payer plugin (sponsor) behind the policy above. */
export function createRelayHandler(ctx: WalletContext) {
  const validate = createSponsorValidator(ctx);
  return async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBodyText(req, 256 * 1024);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return rpcError(res, null, -32700, "parse error");
    }
    // Refused by the body reader like every JSON body (400 invalid_body), before anything recursive sees it.
    if (exceedsJsonDepth(parsed)) throw tooDeep();
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    if (calls.length === 0 || calls.length > 10) return rpcError(res, null, -32600, "invalid request");
    for (const call of calls) {
      const method = (call as { method?: unknown } | null)?.method;
      if (typeof method !== "string" || !RELAY_METHODS.has(method)) {
        // named only when it is a string: String() of any other value (a nested array) would convert all of it
        const named = typeof method === "string" ? method.slice(0, 60) : "(not a string)";
        return rpcError(res, (call as { id?: unknown } | null)?.id, -32601, `method not offered by this relay: ${named}`);
      }
    }
    const relayImpl = await ctx.chain.relay(validate as never);
    const response = await relayImpl.fetch(new Request("http://relay.local/", { method: "POST", headers: { "content-type": "application/json" }, body: text }));
    const out = await response.text();
    const headers: Record<string, string> = { "cache-control": "no-store", "content-type": response.headers.get("content-type") ?? "application/json" };
    res.writeHead(response.status, headers);
    res.end(out);
  };
}
