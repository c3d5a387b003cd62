import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { formatAmount, parseAmount, parseBaseUnits, tokenName } from "../amount.ts";
import { note, print, printJson, relativeTime, requireSession, type Context } from "../context.ts";
import { CliError, EXIT, UsageError } from "../exitCodes.ts";
import { memoProblem } from "../memo.ts";
import { cliErrorOf } from "../cliErrorOf.ts";
import { ApiCallError, retryAfterSeconds } from "@agent-ledger/client";
import { getBackoffDelay } from "@agent-ledger/core/getBackoffDelay";
import type { PayPendingAnswer, PaySentAnswer } from "@agent-ledger/core/payAnswer";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

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

/** How long `pay` keeps asking about one payment (retries and a pending outcome) before exiting 7, by default. */
export const PAY_RETRY_WINDOW_MS = 120_000;

/**
 * The retry window of `pay` in ms: `--pending-timeout SECONDS`, else `$AGENT_LEDGER_PAY_PENDING_TIMEOUT`, else 120 s.
 * Whole seconds 1–86400; anything else is a usage error (exit 2).
 */
export function payWindowMs(option: string | boolean | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const given = typeof option === "string" ? option : env.AGENT_LEDGER_PAY_PENDING_TIMEOUT;
  if (given === undefined || given === "") return PAY_RETRY_WINDOW_MS;
  const seconds = /^[1-9][0-9]{0,4}$/.test(given) ? Number(given) : NaN;
  if (!(seconds <= 86_400)) {
    throw new UsageError(
      `${typeof option === "string" ? "--pending-timeout" : "AGENT_LEDGER_PAY_PENDING_TIMEOUT"} must be whole seconds from 1 to 86400 (got "${given.slice(0, 40)}")`,
    );
  }
  return seconds * 1000;
}
const KEY = /^[\x21-\x7e]{1,255}$/;

/** Answers worth asking again with the same key: the payment may be in flight or the server briefly unwell. */
function retryable(error: unknown): boolean {
  if (error instanceof ApiCallError) {
    if (error.status === 0) return true; // no answer: the payment may or may not have been made
    if (error.code === "idempotency_key_in_use" || error.status === 429) return true;
    if (error.code === "payment_failed" || error.code === "not_configured") return false;
    return error.status >= 500;
  }
  return false;
}

/**
 * POST /api/wallet/pay with one Idempotency-Key for this invocation: the first attempt and every retry (unreachable,
 * 5xx other than payment_failed, 409 key in use, 429, and 202 pending) carry the same key, so the server answers the
 * first attempt's result and never pays twice. Gives up after `windowMs` (exit 7 when still pending).
 */
export async function payOnce(
  ctx: Context,
  body: ReturnType<typeof payRequest>,
  bearer: string,
  key: string,
  windowMs = PAY_RETRY_WINDOW_MS,
): Promise<PaySentAnswer> {
  const deadline = Date.now() + windowMs;
  let failures = 0;
  for (let attempt = 1; ; attempt++) {
    let waitMs: number;
    try {
      // The server waits for the receipt (bounded); leave it room.
      const res = await ctx.client.request<PaySentAnswer | PayPendingAnswer>("POST", "/api/wallet/pay", {
        body,
        bearer,
        headers: { "idempotency-key": key },
        timeoutMs: 90_000,
        signal: ctx.signal,
      });
      if (res.status !== 202) return res.body as PaySentAnswer;
      const pending = res.body as PayPendingAnswer;
      if (Date.now() >= deadline) {
        throw new CliError(
          EXIT.PENDING,
          `payment pending: ${pending.tx_hash ? `transaction ${pending.tx_hash} was broadcast` : "it is being signed"} and its outcome is not known yet (idempotency key ${key})`,
          {
            code: "payment_pending",
            hint: `check again with: agent-ledger pay ${argsOf(body)} --idempotency-key ${key}`,
          },
        );
      }
      if (attempt === 1 && !ctx.json) note(ctx, `Payment broadcast${pending.tx_hash ? ` (tx ${pending.tx_hash})` : ""}; waiting for its outcome…`);
      waitMs = Math.max(1, retryAfterSeconds(res.headers, new Date()) ?? 3) * 1000;
    } catch (error) {
      if (!retryable(error) || Date.now() >= deadline) {
        if (error instanceof ApiCallError && error.status === 0 && attempt > 1) {
          const e = cliErrorOf(error);
          throw new CliError(
            EXIT.UNREACHABLE,
            `${e.message}; the payment may have been made: re-run with --idempotency-key ${key} to find out (never pays twice)`,
            e.details,
          );
        }
        throw error;
      }
      // the server's Retry-After, else 1, 2, 4, 8, 10, 10… s (core's backoff, without jitter)
      failures++;
      waitMs =
        error instanceof ApiCallError && error.retryAfterSeconds !== null
          ? error.retryAfterSeconds * 1000
          : getBackoffDelay(failures, { baseMs: 1_000, maxMs: 10_000, random: 1 });
      if (!ctx.json) note(ctx, `(${error instanceof ApiCallError && error.status !== 0 ? error.code : "unreachable"}; retrying with the same idempotency key)`);
    }
    await sleep(Math.min(waitMs, Math.max(0, deadline - Date.now()) + 1), undefined, { signal: ctx.signal });
  }
}

function argsOf(body: ReturnType<typeof payRequest>): string {
  return [
    `--to ${body.to}`,
    `--amount-wei ${body.amount_wei}`,
    body.memo !== undefined ? `--memo ${JSON.stringify(body.memo)}` : "",
    body.token ? `--token ${body.token}` : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** `pay`: POST /api/wallet/pay with the stored bearer, a fresh Idempotency-Key (or --idempotency-key), retried safely. */
export async function pay(ctx: Context): Promise<number> {
  const body = payRequest(ctx.options);
  const given = ctx.options["idempotency-key"];
  if (given !== undefined && (typeof given !== "string" || !KEY.test(given)))
    throw new UsageError("--idempotency-key must be 1–255 visible ASCII characters (no spaces)");
  const windowMs = payWindowMs(ctx.options["pending-timeout"]);
  const session = requireSession(ctx);
  const paid = await payOnce(ctx, body, session.access_token, typeof given === "string" ? given : randomUUID(), windowMs);
  if (ctx.json) return (printJson(ctx, paid), EXIT.OK);
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
    if (error instanceof ApiCallError && (error.code === "session_expired" || error.code === "session_revoked")) {
      const state = error.code === "session_expired" ? "expired" : "revoked";
      if (ctx.json) printJson(ctx, { api: ctx.api, session_id: stored.session_id, status: state, message: error.message });
      else print(ctx, `Session ${stored.session_id} with ${ctx.api}: ${state} (${error.message}). Run \`agent-ledger pair\` for a new one.`);
      return EXIT.EXPIRED;
    }
    throw error;
  }
  const code = STATUS_EXIT[s.status] ?? EXIT.ERROR;
  if (ctx.json) return (printJson(ctx, { api: ctx.api, ...s }), code);
  const unit = tokenName(s.token);
  const rows: [string, string][] = [
    ["API", ctx.api],
    ["Session", `${s.session_id} (${s.status})`],
    ["Agent", `${s.agent_label ?? "(no label)"}, key ${s.agent_key_address}`],
    ["Account", s.managed_address],
    ["Token", `${unit} ${s.token}`],
    [
      "Spent",
      `${formatAmount(s.spend_used_wei)} of ${formatAmount(s.spend_cap_wei)} (${formatAmount(s.spend_remaining_wei)} left${BigInt(s.spend_reserved_wei || "0") > 0n ? `, ${formatAmount(s.spend_reserved_wei)} in flight` : ""})`,
    ],
    ["Per payment", `at most ${formatAmount(s.per_call_cap_wei)}`],
    ["Expires", `${s.expires_at} (${relativeTime(s.expires_at)})`],
  ];
  if (s.revoked_at) rows.push(["Revoked", s.revoked_at]);
  rows.push([
    "On chain",
    s.on_chain_authorized_at ? `authorized ${s.on_chain_authorized_at}${s.authorize_tx_hash ? `, tx ${s.authorize_tx_hash}` : ""}` : "not authorized yet",
  ]);
  const width = Math.max(...rows.map((r) => r[0].length));
  for (const [k, v] of rows) print(ctx, `${k.padEnd(width)}  ${v}`);
  return code;
}

/** `revoke`: POST /api/wallet/session/revoke, then forget the token locally (also when it had already ended). */
export async function revoke(ctx: Context): Promise<number> {
  const stored = requireSession(ctx);
  let result: Record<string, unknown>;
  try {
    ({ body: result } = await ctx.client.request<Record<string, unknown>>("POST", "/api/wallet/session/revoke", {
      body: {},
      bearer: stored.access_token,
      signal: ctx.signal,
    }));
  } catch (error) {
    if (!(error instanceof ApiCallError && (error.code === "session_revoked" || error.code === "session_expired"))) throw error;
    result = { session_id: stored.session_id, status: error.code === "session_revoked" ? "revoked" : "expired", already: true };
  }
  const file = await ctx.store.read();
  delete file.sessions[ctx.api];
  if (file.current === ctx.api) file.current = Object.keys(file.sessions)[0] ?? null;
  await ctx.store.write(file);
  if (ctx.json) return (printJson(ctx, { api: ctx.api, ...result, forgotten: true }), EXIT.OK);
  if (result.already) print(ctx, `Session ${stored.session_id} had already ${result.status === "revoked" ? "been revoked" : "expired"}; forgot its token.`);
  else print(ctx, `Revoked session ${stored.session_id}; forgot its token. The agent key can no longer pay through ${ctx.api}.`);
  note(ctx, "Note: the key's on-chain authorization lasts until its expiry, capped at the spend limit; the server never signs with a revoked session.");
  return EXIT.OK;
}
