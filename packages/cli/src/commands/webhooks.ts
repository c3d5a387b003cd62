import { minimumAmountUnit, type AllowedToken } from "@agent-ledger/core/minimumAmountUnit";
import { formatAmount, parseAmount, parseBaseUnits } from "../amount.ts";
import { readAllowlist } from "../readAllowlist.ts";
import { print, printJson, requireSession, type Context } from "../context.ts";
import { EXIT, UsageError } from "../exitCodes.ts";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

/**
 * The create body from the command line. `--min-amount` is read in the decimals of `--token` (or, without it, the
 * allowlist's common decimals; refused when the allowlist mixes decimals), from `tokens`: the registry's allowlist
 * (GraphQL `tokens`; empty: every token in 6 decimals) — the console's rule (core minimumAmountUnit).
 */
export function webhookCreateRequest(
  options: Record<string, string | boolean | undefined>,
  tokens: readonly AllowedToken[] = [],
): { callback_url: string; label: string; filters: Record<string, string> } {
  const filters: Record<string, string> = { agent_id: String(options.agent) };
  for (const [flag, field] of [
    ["recipient", "recipient_address"],
    ["routed-to", "routed_to_address"],
    ["token", "token_address"],
  ] as const) {
    const v = options[flag];
    if (typeof v !== "string") continue;
    if (!ADDRESS.test(v)) throw new UsageError(`--${flag} "${v}" is not an address`);
    filters[field] = v.toLowerCase();
  }
  if (options["min-amount"] !== undefined && options["min-amount-wei"] !== undefined) throw new UsageError("give --min-amount or --min-amount-wei, not both");
  try {
    if (typeof options["min-amount"] === "string") {
      const unit = minimumAmountUnit(tokens, filters.token_address);
      if ("refused" in unit) throw new UsageError(`${unit.refused.replace(/^Choose a token/, "Give --token")} (or --min-amount-wei in base units)`);
      filters.min_amount_wei = parseAmount(options["min-amount"], unit.decimals).toString();
    }
    if (typeof options["min-amount-wei"] === "string") filters.min_amount_wei = parseBaseUnits(options["min-amount-wei"]).toString();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { callback_url: String(options.url), label: typeof options.label === "string" ? options.label : "", filters };
}

const DURATION_UNITS_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * `--since` of `webhooks recover`: an ISO 8601 date-time is sent as given (the server checks it and the 7-day
 * bound); a duration back from `now` (`90m`, `6h`, `2d`, `45s`) becomes the ISO instant that long ago.
 */
export function webhookRecoverSince(value: unknown, now: Date): string {
  if (typeof value !== "string" || value.length === 0) throw new UsageError("--since needs a time (2026-11-25T03:00:00Z) or a duration (6h)");
  const duration = /^(\d{1,7})([smhd])$/.exec(value);
  if (duration) return new Date(now.getTime() - Number(duration[1]) * DURATION_UNITS_MS[duration[2] as keyof typeof DURATION_UNITS_MS]).toISOString();
  if (/^\d{4}-\d{2}-\d{2}T/.test(value)) return value;
  throw new UsageError(`--since "${value}" is neither an ISO 8601 time (2026-11-25T03:00:00Z) nor a duration (90m, 6h, 2d)`);
}

/** The minimum in its token's decimals (the allowlist's rule, minimumAmountUnit); base units when it has none. */
function minimumText(f: Json, tokens: readonly AllowedToken[]): string {
  const unit = minimumAmountUnit(tokens, f.token_address ?? undefined);
  return "refused" in unit ? `${f.min_amount_wei} base units` : `${formatAmount(f.min_amount_wei, unit.decimals)} ${unit.unit}`;
}

function subscriptionLines(ctx: Context, s: Json, tokens: readonly AllowedToken[]): void {
  const f = s.filters ?? {};
  const filters = [
    `agent ${f.agent_id}`,
    f.recipient_address && `recipient ${f.recipient_address}`,
    f.routed_to_address && `routed to ${f.routed_to_address}`,
    f.min_amount_wei && `≥ ${minimumText(f, tokens)}`,
    f.token_address && `token ${f.token_address}`,
  ].filter(Boolean);
  print(ctx, `${s.id}  ${s.status}${s.label ? `  "${s.label}"` : ""}`);
  print(ctx, `  ${s.callback_url}`);
  print(ctx, `  filters: ${filters.join(", ")}`);
  if (s.consecutive_failures) print(ctx, `  consecutive failures: ${s.consecutive_failures}`);
  if (s.status_reason) print(ctx, `  reason: ${s.status_reason}`);
}

/** `webhooks <subcommand>`: the /api/webhooks REST surface with the paired session's bearer. */
export async function webhooks(ctx: Context, sub: string): Promise<number> {
  const bearer = requireSession(ctx).access_token;
  const id = ctx.args[0] ? encodeURIComponent(ctx.args[0]) : "";
  const call = async (method: "GET" | "POST" | "DELETE", path: string, extra: { body?: unknown; query?: Record<string, string | undefined> } = {}) =>
    (await ctx.client.request<Json>(method, path, { bearer, signal: ctx.signal, ...extra })).body;

  // the registry's token allowlist (public GraphQL `tokens`): a minimum amount is read and written in its token's decimals
  let tokensRead: Promise<AllowedToken[]> | undefined;
  const allowlist = () => (tokensRead ??= readAllowlist(ctx));

  switch (sub) {
    case "create": {
      const tokens = typeof ctx.options["min-amount"] === "string" ? await allowlist() : [];
      const s = await call("POST", "/api/webhooks", { body: webhookCreateRequest(ctx.options, tokens) });
      if (ctx.json) return (printJson(ctx, s), EXIT.OK);
      subscriptionLines(ctx, s, s.filters?.min_amount_wei ? await allowlist() : []);
      print(ctx);
      print(ctx, `Signing secret (shown once — store it now): ${s.signing_secret}`);
      print(ctx, `A verification ping with verify_token goes to the callback; activate with:`);
      print(ctx, `  agent-ledger webhooks verify ${s.id} --token <verify_token>   (within 24 h)`);
      return EXIT.OK;
    }
    case "list": {
      const page = await call("GET", "/api/webhooks");
      if (ctx.json) return (printJson(ctx, page), EXIT.OK);
      if (!page.items?.length) return (print(ctx, "No webhooks."), EXIT.OK);
      const tokens = page.items.some((s: Json) => s.filters?.min_amount_wei) ? await allowlist() : [];
      for (const s of page.items) subscriptionLines(ctx, s, tokens);
      return EXIT.OK;
    }
    case "show": {
      const s = await call("GET", `/api/webhooks/${id}`);
      if (ctx.json) return (printJson(ctx, s), EXIT.OK);
      subscriptionLines(ctx, s, s.filters?.min_amount_wei ? await allowlist() : []);
      const d = s.deliveries;
      if (d) print(ctx, `  deliveries: ${d.total} (${d.succeeded} succeeded, ${d.pending} pending, ${d.retrying} retrying, ${d.dead} dead)`);
      print(ctx, `  created ${s.created_at}`);
      return EXIT.OK;
    }
    case "verify": {
      const r = await call("POST", `/api/webhooks/${id}/verify`, { body: { verify_token: ctx.options.token } });
      if (ctx.json) return (printJson(ctx, r), EXIT.OK);
      return (print(ctx, `${ctx.args[0]} is ${r.status}.`), EXIT.OK);
    }
    case "pause":
    case "resume": {
      const s = await call("POST", `/api/webhooks/${id}/${sub}`);
      if (ctx.json) return (printJson(ctx, s), EXIT.OK);
      return (print(ctx, `${s.id ?? ctx.args[0]} is now ${s.status}.`), EXIT.OK);
    }
    case "rotate-secret": {
      const r = await call("POST", `/api/webhooks/${id}/rotate-secret`);
      if (ctx.json) return (printJson(ctx, r), EXIT.OK);
      print(ctx, `New signing secret (shown once; the old one stops working now): ${r.signing_secret}`);
      return EXIT.OK;
    }
    case "delete": {
      const r = await call("DELETE", `/api/webhooks/${id}`);
      if (ctx.json) return (printJson(ctx, r), EXIT.OK);
      return (print(ctx, `${ctx.args[0]} deleted.`), EXIT.OK);
    }
    case "deliveries": {
      const limit = ctx.options.limit;
      if (limit !== undefined && !/^\d+$/.test(String(limit))) throw new UsageError("--limit must be a whole number");
      const page = await call("GET", `/api/webhooks/${id}/deliveries`, {
        query: { limit: limit as string | undefined, cursor: ctx.options.cursor as string | undefined },
      });
      if (ctx.json) return (printJson(ctx, page), EXIT.OK);
      if (!page.items?.length) print(ctx, "No deliveries.");
      for (const d of page.items ?? []) {
        const what = d.type === "verify" ? "verify ping" : d.type === "test" ? "test event" : `event ${d.event_id}`;
        const last = d.last_http_status ? `HTTP ${d.last_http_status}` : d.last_error ? d.last_error : "";
        print(
          ctx,
          `${d.id}  ${d.status.padEnd(9)} ${what}, ${d.attempts} attempt${d.attempts === 1 ? "" : "s"}${last ? `, last: ${last}` : ""}${d.next_attempt_at && d.status !== "succeeded" && d.status !== "dead" ? `, next ${d.next_attempt_at}` : ""}`,
        );
      }
      if (page.next_cursor) print(ctx, `More: agent-ledger webhooks deliveries ${ctx.args[0]} --cursor ${page.next_cursor}`);
      return EXIT.OK;
    }
    case "redeliver": {
      const r = await call("POST", `/api/webhooks/${id}/deliveries/${encodeURIComponent(ctx.args[1] ?? "")}/redeliver`);
      if (ctx.json) return (printJson(ctx, r), EXIT.OK);
      return (print(ctx, `Delivery ${ctx.args[1]} queued for a new attempt.`), EXIT.OK);
    }
    case "recover": {
      const r = await call("POST", `/api/webhooks/${id}/recover`, { body: { since: webhookRecoverSince(ctx.options.since, new Date()) } });
      if (ctx.json) return (printJson(ctx, r), EXIT.OK);
      print(
        ctx,
        `${r.deliveries_created} deliver${r.deliveries_created === 1 ? "y" : "ies"} created for ${ctx.args[0]} (rows since ${r.since} matching its filters: ${r.matched_events}; the others were already delivered or queued).`,
      );
      return EXIT.OK;
    }
    case "test": {
      const r = await call("POST", `/api/webhooks/${id}/test`);
      if (ctx.json) return (printJson(ctx, r), EXIT.OK);
      return (print(ctx, `Test event queued: delivery ${r.delivery_id} (see: agent-ledger webhooks deliveries ${ctx.args[0]}).`), EXIT.OK);
    }
    default:
      throw new UsageError(`unknown webhooks subcommand "${sub}"`);
  }
}
