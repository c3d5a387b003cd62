import { describeProviders } from "./describeProviders.ts";
import { listRecentEvents } from "./listRecentEvents.ts";
import { IN_WINDOW, loadHeadlineFigures } from "./loadHeadlineFigures.ts";
import { loadTokenBreakdowns } from "./loadTokenBreakdowns.ts";
import { HOUR_MS, resolveWindow, type WindowBounds } from "./resolveWindow.ts";
import type { Dashboard, ProviderPattern, ServiceContext, TopEntity } from "./types.ts";

export const DASHBOARD_TOP_N = 5;
export const DASHBOARD_RECENT_EVENTS = 20;

/**
 * The dashboard of a window, from the rollup tables only (plus the 20 newest rows by primary key):
 * payments count once even between two watched entities; fees are not payments.
 */
export async function getDashboard(ctx: ServiceContext, windowName: string): Promise<Dashboard> {
  const now = ctx.now();
  const w = resolveWindow(windowName, now);
  // `all` reads the all-time totals (one row per entity / provider) instead of aggregating every daily bucket, when
  // they equal the window: no bucket at or after its end (only an injected `now` before the newest data has one).
  const totals = w.from === null && (await noBucketFrom(ctx, w.to));
  const [headline, topServices, topAgents, topProviders, recentEvents, windowHours] = await Promise.all([
    loadHeadlineFigures(ctx, w, totals),
    topEntities(ctx, w, true, totals),
    topEntities(ctx, w, false, totals),
    topProvidersOf(ctx, w, totals),
    listRecentEvents(ctx, DASHBOARD_RECENT_EVENTS),
    w.windowHours ?? hoursSinceFirstBucket(ctx, w, now),
  ]);
  return {
    window: w.name,
    windowHours,
    ...headline,
    topServices,
    topAgents,
    topProviders,
    recentEvents,
  };
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
  const tokens = await loadTokenBreakdowns(
    ctx,
    "entity",
    rows.map((r) => r.id),
    { grain: w.grain, from: w.from, to: w.to },
  );
  return rows.map((r, i) => ({
    id: r.id,
    label: r.label ?? r.id,
    category: r.category ?? "",
    txCount: Number(r.n),
    amountSumWei: BigInt(r.s),
    byToken: tokens[i]!.byToken,
  }));
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
  const tokens = await loadTokenBreakdowns(
    ctx,
    "provider",
    rows.map((r) => r.provider_key),
    { grain: w.grain, from: w.from, to: w.to },
  );
  return describeProviders(
    ctx,
    rows.map((r, i) => ({ key: r.provider_key, pattern: r.pattern, txCount: Number(r.n), amountSumWei: BigInt(r.s), byToken: tokens[i]!.byToken })),
  );
}

/** `all`: hours from the first daily bucket (entity_activity_daily) to now, rounded up; 0 without data. */
async function hoursSinceFirstBucket(ctx: ServiceContext, w: WindowBounds, now: Date): Promise<number> {
  const { rows } = await ctx.db.query<{ first: Date | null }>("SELECT min(bucket) AS first FROM entity_activity_daily WHERE bucket < $1", [w.to]);
  const first = rows[0]?.first;
  return first ? Math.max(0, Math.ceil((now.getTime() - first.getTime()) / HOUR_MS)) : 0;
}
