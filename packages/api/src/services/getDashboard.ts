import { describeProviders } from "./describeProviders.ts";
import { listRecentEvents } from "./listRecentEvents.ts";
import { loadTokenBreakdowns } from "./loadTokenBreakdowns.ts";
import { HOUR_MS, resolveWindow, type WindowBounds } from "./resolveWindow.ts";
import type { Dashboard, ProviderPattern, ServiceContext, TokenAmount, TopEntity } from "./types.ts";

export const DASHBOARD_TOP_N = 5;
export const DASHBOARD_RECENT_EVENTS = 20;

/** `bucket` in the window; $1 = from (null = unbounded), $2 = to (exclusive). */
const IN_WINDOW = "($1::timestamptz IS NULL OR bucket >= $1) AND bucket < $2";

/**
 * The dashboard of a window, from the rollup tables only (plus the 20 newest rows by primary key):
 * payments count once even between two watched entities; fees are not payments.
 */
export async function getDashboard(ctx: ServiceContext, windowName: string): Promise<Dashboard> {
  const now = ctx.now();
  const w = resolveWindow(windowName, now);
  const g = w.grain; // "hourly" | "daily": from a closed set, safe to interpolate
  const range = [w.from, w.to];
  // `all` reads the all-time totals (one row per entity / provider) instead of aggregating every daily bucket, when
  // they equal the window: no bucket at or after its end (only an injected `now` before the newest data has one).
  const totals = w.from === null && (await noBucketFrom(ctx, w.to));
  const [ledger, agents, providers, topServices, topAgents, topProviders, recentEvents, windowHours, byToken] = await Promise.all([
    ctx.db.query<{ n: string; s: string }>(
      `SELECT coalesce(sum(payments_count), 0)::text AS n, coalesce(sum(amount_sum_wei), 0)::text AS s FROM ledger_activity_${g} WHERE ${IN_WINDOW}`,
      range,
    ),
    totals
      ? ctx.db.query<{ n: string }>("SELECT count(*)::text AS n FROM entity_activity_total WHERE entity_id NOT LIKE '%-mpp'")
      : ctx.db.query<{ n: string }>(
          `SELECT count(DISTINCT entity_id)::text AS n FROM entity_activity_${g} WHERE ${IN_WINDOW} AND entity_id NOT LIKE '%-mpp'`,
          range,
        ),
    totals
      ? ctx.db.query<{ n: string }>("SELECT count(*)::text AS n FROM provider_activity_total")
      : ctx.db.query<{ n: string }>(`SELECT count(DISTINCT provider_key)::text AS n FROM provider_activity_${g} WHERE ${IN_WINDOW}`, range),
    topEntities(ctx, w, true, totals),
    topEntities(ctx, w, false, totals),
    topProvidersOf(ctx, w, totals),
    listRecentEvents(ctx, DASHBOARD_RECENT_EVENTS),
    w.windowHours ?? hoursSinceFirstBucket(ctx, w, now),
    tokenAmounts(ctx, w),
  ]);
  return {
    window: w.name,
    windowHours,
    txCount: Number(ledger.rows[0]!.n),
    amountSumWei: BigInt(ledger.rows[0]!.s),
    byToken,
    agentsActive: Number(agents.rows[0]!.n),
    providersDetected: Number(providers.rows[0]!.n),
    topServices,
    topAgents,
    topProviders,
    recentEvents,
  };
}

/**
 * The payments per token (ledger_token_activity_*) of the buckets in [w.from, w.to) (from null: since the beginning),
 * with the allowlist's description; largest amount first. The dashboard's window and the one before it (getPreviousWindow).
 */
export async function tokenAmounts(ctx: ServiceContext, w: Pick<WindowBounds, "grain" | "from" | "to">): Promise<TokenAmount[]> {
  const { rows } = await ctx.db.query<{ token_address: string; symbol: string | null; decimals: number | null; currency: string | null; n: string; s: string }>(
    `SELECT l.token_address, t.symbol, t.decimals, t.currency, sum(l.payments_count)::text AS n, sum(l.amount_sum_wei)::text AS s
     FROM ledger_token_activity_${w.grain} l LEFT JOIN tokens t ON t.address = l.token_address
     WHERE ${IN_WINDOW} GROUP BY 1, 2, 3, 4 ORDER BY sum(l.amount_sum_wei) DESC, l.token_address`,
    [w.from, w.to],
  );
  return rows.map((r) => ({ tokenAddress: r.token_address, symbol: r.symbol, decimals: r.decimals, currency: r.currency, txCount: Number(r.n), amountSumWei: BigInt(r.s) }));
}

/** True when no entity or provider rollup bucket starts at or after `to` (index probes of the newest daily bucket). */
async function noBucketFrom(ctx: ServiceContext, to: Date): Promise<boolean> {
  const { rows } = await ctx.db.query<{ ok: boolean }>(
    `SELECT coalesce((SELECT max(bucket) FROM entity_activity_daily) < $1, true)
        AND coalesce((SELECT max(bucket) FROM provider_activity_daily) < $1, true) AS ok`,
    [to],
  );
  return rows[0]!.ok;
}

/** Top entities of one kind by payment amount (sent + received), then count, then id; only those with payments. */
async function topEntities(ctx: ServiceContext, w: WindowBounds, curated: boolean, totals: boolean): Promise<TopEntity[]> {
  const { rows } = await ctx.db.query<{ id: string; label: string | null; category: string | null; n: string; s: string }>(
    totals
      ? `SELECT t.entity_id AS id, e.label, e.category, (t.sent_count + t.received_count)::text AS n, (t.sent_sum_wei + t.received_sum_wei)::text AS s
         FROM entity_activity_total t LEFT JOIN entities e ON e.id = t.entity_id
         WHERE (t.entity_id LIKE '%-mpp') = $1 AND t.sent_count + t.received_count > 0
         ORDER BY t.sent_sum_wei + t.received_sum_wei DESC, t.sent_count + t.received_count DESC, t.entity_id LIMIT $2`
      : `SELECT t.entity_id AS id, e.label, e.category, t.n::text AS n, t.s::text AS s
     FROM (SELECT entity_id, sum(sent_count + received_count) AS n, sum(sent_sum_wei + received_sum_wei) AS s
           FROM entity_activity_${w.grain}
           WHERE ${IN_WINDOW} AND (entity_id LIKE '%-mpp') = $3
           GROUP BY entity_id HAVING sum(sent_count + received_count) > 0
           ORDER BY s DESC, n DESC, entity_id LIMIT $4) t
     LEFT JOIN entities e ON e.id = t.entity_id
     ORDER BY t.s DESC, t.n DESC, t.entity_id`,
    totals ? [curated, DASHBOARD_TOP_N] : [w.from, w.to, curated, DASHBOARD_TOP_N],
  );
  const tokens = await loadTokenBreakdowns(ctx, "entity", rows.map((r) => r.id), { grain: w.grain, from: w.from, to: w.to });
  return rows.map((r, i) => ({ id: r.id, label: r.label ?? r.id, category: r.category ?? "", txCount: Number(r.n), amountSumWei: BigInt(r.s), byToken: tokens[i]!.byToken }));
}

async function topProvidersOf(ctx: ServiceContext, w: WindowBounds, totals: boolean) {
  const { rows } = await ctx.db.query<{ provider_key: string; pattern: ProviderPattern; n: string; s: string }>(
    totals
      ? `SELECT provider_key, pattern, payments_count::text AS n, amount_sum_wei::text AS s FROM provider_activity_total
         ORDER BY amount_sum_wei DESC, payments_count DESC, provider_key LIMIT $1`
      : `SELECT provider_key, min(pattern) AS pattern, sum(payments_count)::text AS n, sum(amount_sum_wei)::text AS s
     FROM provider_activity_${w.grain} WHERE ${IN_WINDOW}
     GROUP BY provider_key ORDER BY sum(amount_sum_wei) DESC, sum(payments_count) DESC, provider_key LIMIT $3`,
    totals ? [DASHBOARD_TOP_N] : [w.from, w.to, DASHBOARD_TOP_N],
  );
  const tokens = await loadTokenBreakdowns(ctx, "provider", rows.map((r) => r.provider_key), { grain: w.grain, from: w.from, to: w.to });
  return describeProviders(ctx, rows.map((r, i) => ({ key: r.provider_key, pattern: r.pattern, txCount: Number(r.n), amountSumWei: BigInt(r.s), byToken: tokens[i]!.byToken })));
}

/** `all`: hours from the first daily bucket (entity_activity_daily) to now, rounded up; 0 without data. */
async function hoursSinceFirstBucket(ctx: ServiceContext, w: WindowBounds, now: Date): Promise<number> {
  const { rows } = await ctx.db.query<{ first: Date | null }>("SELECT min(bucket) AS first FROM entity_activity_daily WHERE bucket < $1", [w.to]);
  const first = rows[0]?.first;
  return first ? Math.max(0, Math.ceil((now.getTime() - first.getTime()) / HOUR_MS)) : 0;
}
