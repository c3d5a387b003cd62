import { hostname, userInfo } from "node:os";
import { formatAmount, tokenName } from "../amount.ts";
import { ApiCallError } from "@agent-ledger/client";
import { getBackoffDelay } from "@agent-ledger/core/getBackoffDelay";
import type { StoredSession } from "../config.ts";
import { note, print, type Context } from "../context.ts";
import { CliError, EXIT } from "../exitCodes.ts";
import { createSpinner } from "../spinner.ts";

interface StartAnswer {
  code: string;
  device_id: string;
  approve_url: string;
  expires_at: string;
  poll_interval_seconds: number;
  pairing_id: string;
}

interface PollAnswer {
  status: "pending" | "expired" | "claimed" | "approved";
  access_token?: string;
  token_type?: string;
  session_id?: string;
  expires_at?: string;
  agent_key_address?: string;
  managed_address?: string;
  spend_cap_wei?: string;
  per_call_cap_wei?: string;
  token?: string;
}

/** Seconds to wait after a `slow_down` without Retry-After: the interval grows by 5 s (RFC 8628 §3.5). */
export const SLOW_DOWN_STEP_SECONDS = 5;
/** How long after `expires_at` we keep asking before calling it expired ourselves (clock skew). */
const EXPIRY_GRACE_MS = 30_000;

export function defaultAgentLabel(): string {
  let user = "agent";
  try {
    user = userInfo().username || user;
  } catch {
    /* no passwd entry (containers) */
  }
  return `${user}@${hostname()}`.slice(0, 100);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `pair`: device/start, print the code and URL (and open it), then poll every `poll_interval_seconds` — honouring
 * 429 `slow_down` + Retry-After — until the pairing is approved (store the token, 0600), expires (exit 5) or was
 * claimed by someone else (exit 1). Transient network errors are retried until the code expires.
 */
export async function pair(ctx: Context): Promise<number> {
  const label = typeof ctx.options.label === "string" ? ctx.options.label : defaultAgentLabel();
  const { body: start } = await ctx.client.request<StartAnswer>("POST", "/api/wallet/device/start", { body: { agent_label: label }, signal: ctx.signal });
  const expiresAt = Date.parse(start.expires_at);

  if (ctx.json) {
    ctx.io.stdout.write(
      `${JSON.stringify({ event: "started", code: start.code, approve_url: start.approve_url, expires_at: start.expires_at, pairing_id: start.pairing_id, agent_label: label })}\n`,
    );
  } else {
    print(ctx, `To approve "${label}", open this page and confirm with your passkey:`);
    print(ctx);
    print(ctx, `  ${start.approve_url}`);
    print(ctx);
    print(ctx, `and check that it shows the code  ${start.code}`);
    print(ctx);
  }
  const opened = !ctx.options["no-open"] && ctx.io.interactive && ctx.io.openBrowser(start.approve_url);
  if (opened && !ctx.json) note(ctx, "(opened your browser)");

  const spinner = createSpinner(ctx.io.stderr, !ctx.json);
  const left = () => Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
  const mmss = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  spinner.start(() => `Waiting for approval… code ${start.code}, ${mmss(left())} left (Ctrl-C to cancel)`);

  let interval = typeof start.poll_interval_seconds === "number" && Number.isFinite(start.poll_interval_seconds) ? Math.max(1, start.poll_interval_seconds) : 5;
  let wait = interval;
  let networkFailures = 0;
  try {
    for (;;) {
      await sleep(wait * 1000, ctx.signal);
      let answer: PollAnswer;
      try {
        ({ body: answer } = await ctx.client.request<PollAnswer>("GET", "/api/wallet/device/poll", {
          query: { device_id: start.device_id },
          signal: ctx.signal,
          timeoutMs: 20_000,
        }));
        networkFailures = 0;
      } catch (error) {
        if (error instanceof ApiCallError && error.status === 429) {
          if (error.retryAfterSeconds !== null) wait = Math.max(1, error.retryAfterSeconds);
          else {
            interval += SLOW_DOWN_STEP_SECONDS;
            wait = interval;
          }
          continue;
        }
        if (error instanceof ApiCallError && error.status === 404)
          throw new CliError(EXIT.EXPIRED, "the server no longer knows this pairing (it expired)", {
            code: "pairing_not_found",
            hint: "run `agent-ledger pair` again",
          });
        if (error instanceof ApiCallError && error.status === 0 && Date.now() < expiresAt + EXPIRY_GRACE_MS) {
          networkFailures++;
          // 2, 4, then 8 intervals, at most 30 s (core's backoff, without jitter)
          wait = getBackoffDelay(networkFailures + 1, { baseMs: interval * 1000, maxMs: Math.min(interval * 8, 30) * 1000, random: 1 }) / 1000;
          spinner.flash(`(API unreachable, retrying in ${wait} s)`);
          continue;
        }
        throw error;
      }
      if (answer.status === "pending") {
        if (Date.now() > expiresAt + EXPIRY_GRACE_MS) throw expired();
        wait = interval;
        continue;
      }
      if (answer.status === "expired") throw expired();
      if (answer.status === "claimed") {
        throw new CliError(EXIT.ERROR, "this pairing was approved, but its token was already handed out to an earlier poll", {
          code: "pairing_claimed",
          hint: "run `agent-ledger pair` again",
        });
      }
      if (answer.status === "approved" && answer.access_token) {
        spinner.stop();
        const session: StoredSession = {
          api: ctx.api,
          access_token: answer.access_token,
          token_type: answer.token_type ?? "Bearer",
          session_id: answer.session_id ?? "",
          expires_at: answer.expires_at ?? "",
          agent_key_address: answer.agent_key_address ?? "",
          managed_address: answer.managed_address ?? "",
          spend_cap_wei: answer.spend_cap_wei ?? "0",
          per_call_cap_wei: answer.per_call_cap_wei ?? "0",
          token: answer.token ?? "",
          agent_label: label,
          paired_at: new Date().toISOString(),
        };
        // Re-read right before writing: another command may have changed the file meanwhile.
        const file = await ctx.store.read();
        file.sessions[ctx.api] = session;
        file.current = ctx.api;
        await ctx.store.write(file);
        const { access_token: _secret, ...shown } = session;
        if (ctx.json) {
          ctx.io.stdout.write(`${JSON.stringify({ event: "paired", ...shown, credentials_path: ctx.store.path })}\n`);
        } else {
          const unit = tokenName(session.token);
          print(ctx, `Paired. This machine can now pay from ${session.managed_address}`);
          print(
            ctx,
            `  limit ${formatAmount(session.spend_cap_wei)} ${unit} in total, ${formatAmount(session.per_call_cap_wei)} per payment, until ${session.expires_at}`,
          );
          print(ctx, `  token saved to ${ctx.store.path}`);
        }
        return EXIT.OK;
      }
      throw new CliError(EXIT.ERROR, `unexpected poll answer: ${JSON.stringify(answer).slice(0, 200)}`);
    }
  } finally {
    spinner.stop();
  }
}

function expired(): CliError {
  return new CliError(EXIT.EXPIRED, "the pairing code expired before it was approved", {
    code: "code_expired",
    hint: "run `agent-ledger pair` again (codes are valid for 5 minutes)",
  });
}
