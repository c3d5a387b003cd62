import { formatAmount, parseAmount, parseBaseUnits, tokenName } from "../amount.ts";
import { ApiError } from "../client.ts";
import { note, print, printJson, relativeTime, requireSession, type Context } from "../context.ts";
import { EXIT, UsageError } from "../exitCodes.ts";
import { memoProblem } from "../memo.ts";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

interface PayAnswer {
  tx_hash: string;
  explorer_url: string | null;
  from: string;
  to: string;
  amount_wei: string;
  memo: string | null;
  token: string;
  spend_used_wei_after: string;
  spend_cap_wei: string;
}

/** The request body of `pay` from the command line (validated here, so a typo never reaches the chain). */
export function payRequest(options: Record<string, string | boolean | undefined>): { to: string; amount_wei: string; memo?: string; token?: string } {
  const to = String(options.to ?? "");
  if (!ADDRESS.test(to)) throw new UsageError(`--to "${to}" is not an address (0x + 40 hex digits)`);
  const human = options.amount;
  const units = options["amount-wei"];
  if ((human === undefined) === (units === undefined)) throw new UsageError("give exactly one of --amount (tokens, like 1.25) or --amount-wei (base units)");
  let amount: bigint;
  try {
    amount = typeof human === "string" ? parseAmount(human) : parseBaseUnits(String(units));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (amount <= 0n) throw new UsageError("the amount must be more than 0");
  const body: { to: string; amount_wei: string; memo?: string; token?: string } = { to: to.toLowerCase(), amount_wei: amount.toString() };
  if (typeof options.memo === "string") {
    const problem = memoProblem(options.memo);
    if (problem) throw new UsageError(problem);
    body.memo = options.memo;
  }
  if (typeof options.token === "string") {
    if (!ADDRESS.test(options.token)) throw new UsageError(`--token "${options.token}" is not an address`);
    body.token = options.token.toLowerCase();
  }
  return body;
}

/** `pay`: POST /api/wallet/pay with the stored bearer. */
export async function pay(ctx: Context): Promise<number> {
  const body = payRequest(ctx.options);
  const session = requireSession(ctx);
  // The server waits for the receipt (bounded); leave it room.
  const { body: paid } = await ctx.client.request<PayAnswer>("POST", "/api/wallet/pay", { body, bearer: session.access_token, timeoutMs: 90_000, signal: ctx.signal });
  if (ctx.json) return printJson(ctx, paid), EXIT.OK;
  const unit = tokenName(paid.token);
  print(ctx, `Paid ${formatAmount(paid.amount_wei)} ${unit} to ${paid.to}${paid.memo ? ` (memo "${paid.memo}")` : ""}`);
  print(ctx, `  tx ${paid.tx_hash}${paid.explorer_url ? `  ${paid.explorer_url}` : ""}`);
  print(ctx, `  spent ${formatAmount(paid.spend_used_wei_after)} of ${formatAmount(paid.spend_cap_wei)} ${unit}`);
  return EXIT.OK;
}

interface SessionAnswer {
  session_id: string;
  status: "active" | "expired" | "revoked" | "not_authorized" | string;
  agent_label: string | null;
  agent_key_address: string;
  managed_address: string;
  token: string;
  spend_cap_wei: string;
  per_call_cap_wei: string;
  spend_used_wei: string;
  spend_reserved_wei: string;
  spend_remaining_wei: string;
  expires_at: string;
  revoked_at: string | null;
  on_chain_authorized_at: string | null;
  authorize_tx_hash: string | null;
  created_at: string;
}

const STATUS_EXIT: Record<string, number> = { active: EXIT.OK, expired: EXIT.EXPIRED, revoked: EXIT.EXPIRED, not_authorized: EXIT.FORBIDDEN };

/** `status`: GET /api/wallet/session. Exit 0 only when the session can pay (active). */
export async function status(ctx: Context): Promise<number> {
  const stored = requireSession(ctx);
  let s: SessionAnswer;
  try {
    ({ body: s } = await ctx.client.request<SessionAnswer>("GET", "/api/wallet/session", { bearer: stored.access_token, signal: ctx.signal }));
  } catch (error) {
    // A session that ended may be refused outright (403 session_expired / session_revoked): report it as such.
    if (error instanceof ApiError && (error.code === "session_expired" || error.code === "session_revoked")) {
      const state = error.code === "session_expired" ? "expired" : "revoked";
      if (ctx.json) printJson(ctx, { api: ctx.api, session_id: stored.session_id, status: state, message: error.message });
      else print(ctx, `Session ${stored.session_id} with ${ctx.api}: ${state} (${error.message}). Run \`agent-ledger pair\` for a new one.`);
      return EXIT.EXPIRED;
    }
    throw error;
  }
  const code = STATUS_EXIT[s.status] ?? EXIT.ERROR;
  if (ctx.json) return printJson(ctx, { api: ctx.api, ...s }), code;
  const unit = tokenName(s.token);
  const rows: [string, string][] = [
    ["API", ctx.api],
    ["Session", `${s.session_id} (${s.status})`],
    ["Agent", `${s.agent_label ?? "(no label)"}, key ${s.agent_key_address}`],
    ["Account", s.managed_address],
    ["Token", `${unit} ${s.token}`],
    ["Spent", `${formatAmount(s.spend_used_wei)} of ${formatAmount(s.spend_cap_wei)} (${formatAmount(s.spend_remaining_wei)} left${BigInt(s.spend_reserved_wei || "0") > 0n ? `, ${formatAmount(s.spend_reserved_wei)} in flight` : ""})`],
    ["Per payment", `at most ${formatAmount(s.per_call_cap_wei)}`],
    ["Expires", `${s.expires_at} (${relativeTime(s.expires_at)})`],
  ];
  if (s.revoked_at) rows.push(["Revoked", s.revoked_at]);
  rows.push(["On chain", s.on_chain_authorized_at ? `authorized ${s.on_chain_authorized_at}${s.authorize_tx_hash ? `, tx ${s.authorize_tx_hash}` : ""}` : "not authorized yet"]);
  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [k, v] of rows) print(ctx, `${k.padEnd(width)}  ${v}`);
  return code;
}

/** `revoke`: POST /api/wallet/session/revoke, then forget the token locally (also when it had already ended). */
export async function revoke(ctx: Context): Promise<number> {
  const stored = requireSession(ctx);
  let result: Record<string, unknown>;
  try {
    ({ body: result } = await ctx.client.request<Record<string, unknown>>("POST", "/api/wallet/session/revoke", { body: {}, bearer: stored.access_token, signal: ctx.signal }));
  } catch (error) {
    if (!(error instanceof ApiError && (error.code === "session_revoked" || error.code === "session_expired"))) throw error;
    result = { session_id: stored.session_id, status: error.code === "session_revoked" ? "revoked" : "expired", already: true };
  }
  const file = await ctx.store.read();
  delete file.sessions[ctx.api];
  if (file.current === ctx.api) file.current = Object.keys(file.sessions)[0] ?? null;
  await ctx.store.write(file);
  if (ctx.json) return printJson(ctx, { api: ctx.api, ...result, forgotten: true }), EXIT.OK;
  if (result.already) print(ctx, `Session ${stored.session_id} had already ${result.status === "revoked" ? "been revoked" : "expired"}; forgot its token.`);
  else print(ctx, `Revoked session ${stored.session_id}; forgot its token. The agent key can no longer pay through ${ctx.api}.`);
  note(ctx, "Note: the key's on-chain authorization lasts until its expiry, capped at the spend limit; the server never signs with a revoked session.");
  return EXIT.OK;
}

