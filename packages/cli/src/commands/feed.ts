import { EventSource } from "eventsource";
import { minimumAmountUnit, type AllowedToken } from "@agent-ledger/core/minimumAmountUnit";
import { formatAmount, parseAmount } from "../amount.ts";
import { readAllowlist } from "../readAllowlist.ts";
import { note, type Context } from "../context.ts";
import { CliError, EXIT, UsageError } from "../exitCodes.ts";
import { USER_AGENT } from "../userAgent.ts";

/* eslint-disable @typescript-eslint/no-explicit-any */

/** A row's amount in its token's decimals with its symbol (allowlist); 6-decimal token units without one; raw units of a token outside it. */
function amountText(r: any, tokens: readonly AllowedToken[]): string {
  if (r.amount_wei === undefined || r.amount_wei === null) return "";
  if (tokens.length === 0) return formatAmount(r.amount_wei);
  const t = tokens.find((x) => typeof r.token_address === "string" && x.address.toLowerCase() === r.token_address.toLowerCase());
  return t ? `${formatAmount(r.amount_wei, t.decimals)} ${t.symbol}` : `${r.amount_wei} raw units`;
}

/** One ledger row as a line of text; `tokens`: the registry's allowlist (readAllowlist). */
export function formatFeedRow(r: any, tokens: readonly AllowedToken[] = []): string {
  const amount = amountText(r, tokens);
  const counterparty =
    r.counterparty_label && r.counterparty_label !== r.counterparty_address ? `${r.counterparty_label} (${r.counterparty_address})` : r.counterparty_address;
  const arrow = r.kind === "payment_received" ? "←" : "→";
  return `#${r.id} ${r.ts} ${r.agent_id} ${r.kind} ${amount} ${arrow} ${counterparty}${r.routed_to_label ? ` via ${r.routed_to_label}` : ""} tx ${r.tx_hash}`;
}

/**
 * `feed`: follows GET /api/feed (server-sent events) with the `eventsource` client, which reconnects by itself and
 * resumes with Last-Event-ID, so nothing is missed or repeated across reconnects. `--since` replays from an id.
 */
export async function feed(ctx: Context): Promise<number> {
  const url = new URL(`${ctx.api}/api/feed`);
  if (typeof ctx.options.agent === "string") url.searchParams.set("agent_id", ctx.options.agent);
  // amounts in their own token's decimals: the allowlist (a feed that cannot read it yet prints 6-decimal units)
  const tokens = typeof ctx.options["min-amount"] === "string" ? await readAllowlist(ctx) : ctx.json ? [] : await readAllowlist(ctx).catch(() => []);
  if (typeof ctx.options["min-amount"] === "string") {
    // the feed filters on amount_wei across tokens: a minimum in tokens needs one decimals for all (minimumAmountUnit)
    const unit = minimumAmountUnit(tokens);
    if ("refused" in unit) throw new UsageError(unit.refused.replace(/^Choose a token for a minimum amount: /, "--min-amount cannot be read: "));
    try {
      url.searchParams.set("min_amount_wei", parseAmount(ctx.options["min-amount"], unit.decimals).toString());
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  if (typeof ctx.options.since === "string") {
    if (!/^\d+$/.test(ctx.options.since)) throw new UsageError("--since must be an event id (a whole number)");
    url.searchParams.set("last_event_id", ctx.options.since);
  }
  let limit = Infinity;
  if (typeof ctx.options.limit === "string") {
    if (!/^[1-9]\d*$/.test(ctx.options.limit)) throw new UsageError("--limit must be a positive whole number");
    limit = Number(ctx.options.limit);
  }

  let failure: { status: number; code: string; message: string } | null = null;
  let seen = 0;
  let announced = false;
  return new Promise<number>((resolve, reject) => {
    const es = new EventSource(url, {
      fetch: async (input, init) => {
        const res = await fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), "user-agent": USER_AGENT } });
        if (res.status !== 200) {
          // Keep the server's explanation (e.g. 404 feed_disabled) for the error message.
          try {
            const body = (await res.clone().json()) as { error?: { code?: string; message?: string } };
            failure = { status: res.status, code: body.error?.code ?? `http_${res.status}`, message: body.error?.message ?? `HTTP ${res.status}` };
          } catch {
            failure = { status: res.status, code: `http_${res.status}`, message: `HTTP ${res.status}` };
          }
        }
        return res;
      },
    });
    const finish = (code: number) => {
      es.close();
      ctx.signal.removeEventListener("abort", onAbort);
      resolve(code);
    };
    const onAbort = () => finish(EXIT.INTERRUPTED);
    ctx.signal.addEventListener("abort", onAbort, { once: true });

    es.addEventListener("ready", (e) => {
      if (!announced && !ctx.json)
        note(ctx, `Following ${url.origin}${url.pathname} from event ${e.lastEventId}${limit < Infinity ? ` (until ${limit} rows)` : ""}. Ctrl-C to stop.`);
      announced = true;
    });
    es.addEventListener("event", (e) => {
      if (seen >= limit) return; // the rest of a chunk that was already being parsed when we closed
      let row: any;
      try {
        row = JSON.parse(e.data);
      } catch {
        return;
      }
      ctx.io.stdout.write(`${ctx.json ? JSON.stringify(row) : formatFeedRow(row, tokens)}\n`);
      if (++seen >= limit) finish(EXIT.OK);
    });
    es.addEventListener("error", (e) => {
      if (es.readyState === EventSource.CLOSED) {
        const f = failure as { status: number; code: string; message: string } | null;
        ctx.signal.removeEventListener("abort", onAbort);
        es.close();
        reject(
          f
            ? new CliError(f.status === 401 ? EXIT.UNAUTHORIZED : EXIT.ERROR, `the feed refused the connection: ${f.message} (${f.code})`, {
                code: f.code,
                status: f.status,
              })
            : new CliError(EXIT.ERROR, `the feed connection failed: ${(e as { message?: string }).message ?? "unknown error"}`),
        );
        return;
      }
      if (!ctx.json)
        note(ctx, announced ? "(feed connection lost; reconnecting and resuming after the last event)" : `(cannot reach ${url.origin} yet; retrying)`);
    });
  });
}
