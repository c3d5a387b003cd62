import { ENTITY_ID } from "@agent-ledger/core";
import { ApiError } from "../errors.ts";
import { parseProviderKey } from "./parseProviderKey.ts";
import { DAY_MS, floorToDay, HOUR_MS, resolveWindow } from "./resolveWindow.ts";
import { byAmountThenToken } from "./loadTokenBreakdowns.ts";
import type { ServiceContext, TokenAmount } from "./types.ts";

export type SeriesBucket = "hour" | "day";

export interface SeriesPoint {
  /** Start of the bucket (UTC). */
  t: Date;
  txCount: number;
  amountSumWei: bigint;
  /** txCount / amountSumWei per token in this bucket, largest amount first (empty when there is nothing). */
  byToken: TokenAmount[];
}

export interface ActivitySeries {
  window: string;
  bucket: SeriesBucket;
  /** First bucket start (inclusive) and the end of the last bucket (exclusive). */
  from: Date;
  to: Date;
  /** Every bucket from `from` to `to`, oldest first, zero-filled. */
  points: SeriesPoint[];
}

export interface SeriesScope {
  /** A watched entity: its payments sent + received (entity_activity_*). */
  entityId?: string | null;
  /** A gateway provider key (address or fingerprint): what was routed to it (provider_activity_*). */
  providerKey?: string | null;
}

/** The bucket a window is drawn with when none is asked: hourly up to 7 days, daily beyond. */
export const defaultBucket = (window: string): SeriesBucket => (window === "24h" || window === "7d" ? "hour" : "day");

/** At most this many points in one series (30 days of hours). */
export const MAX_SERIES_POINTS = 720;

/**
 * Payments count and volume per UTC hour or day over a dashboard window, for the whole ledger (ledger_activity_*:
 * a payment between two watched entities counts once), one entity (entity_activity_*: sent + received) or one
 * provider (provider_activity_*). Read from the rollup tables only — one range scan, never agent_events.
 * `all` starts at the scope's first daily bucket (one bucket when it has none). Hourly buckets are allowed up to
 * 30 days (`invalid_window` otherwise: too many points). The scope is validated before any query: an entity id that is
 * not one (core ENTITY_ID) is `not_found`, a provider key that is not one (parseProviderKey) `invalid_query`.
 */
export async function getActivitySeries(ctx: ServiceContext, window: string, bucket: SeriesBucket | null, scope: SeriesScope = {}): Promise<ActivitySeries> {
  const w = resolveWindow(window, ctx.now());
  const b = bucket ?? defaultBucket(w.name);
  if (b !== "hour" && b !== "day") throw new ApiError("invalid_window", "bucket must be hour or day");
  if (b === "hour" && w.name === "all") throw new ApiError("invalid_window", "hourly buckets are served for windows up to 30d; use bucket day for all");
  const entityId = scope.entityId ?? null;
  const providerKey = scope.providerKey == null ? null : parseProviderKey(scope.providerKey);
  if (entityId !== null && providerKey !== null) throw new ApiError("invalid_query", "give entityId or providerKey, not both");
  if (entityId !== null && !ENTITY_ID.test(entityId)) throw new ApiError("not_found", "no entity with that id");
  const step = b === "hour" ? HOUR_MS : DAY_MS;
  const grain = b === "hour" ? "hourly" : "daily";
  const [table, count, sum, keyColumn, key, tokenTable] =
    entityId !== null
      ? [`entity_activity_${grain}`, "sent_count + received_count", "sent_sum_wei + received_sum_wei", "entity_id", entityId, `entity_token_activity_${grain}`]
      : providerKey !== null
        ? [`provider_activity_${grain}`, "payments_count", "amount_sum_wei", "provider_key", providerKey, `provider_token_activity_${grain}`]
        : [`ledger_activity_${grain}`, "payments_count", "amount_sum_wei", null, null, `ledger_token_activity_${grain}`];
  const to = b === "day" ? new Date(floorToDay(new Date(w.to.getTime() - 1)).getTime() + DAY_MS) : w.to;
  let from: Date;
  if (w.from) from = b === "day" ? floorToDay(w.from) : w.from;
  else {
    const { rows } = await ctx.db.query<{ first: Date | null }>(
      `SELECT min(bucket) AS first FROM ${table} WHERE ${keyColumn ? `${keyColumn} = $2 AND ` : ""}bucket < $1`,
      keyColumn ? [to, key] : [to],
    );
    from = rows[0]?.first ?? new Date(to.getTime() - DAY_MS);
  }
  const values = keyColumn ? [from, to, key] : [from, to];
  const keyed = keyColumn ? `x.${keyColumn} = $3 AND ` : "";
  const [{ rows }, { rows: tokenRows }] = await Promise.all([
    ctx.db.query<{ ms: string; n: string; s: string }>(
      `SELECT (extract(epoch FROM bucket) * 1000)::int8::text AS ms, (${count})::text AS n, (${sum})::text AS s
       FROM ${table} x WHERE ${keyed}bucket >= $1 AND bucket < $2`,
      values,
    ),
    // The same buckets per token (ledger_/entity_/provider_token_activity_*), with the allowlist's description.
    ctx.db.query<{ ms: string; token_address: string; symbol: string | null; decimals: number | null; currency: string | null; n: number; s: string }>(
      `SELECT (extract(epoch FROM x.bucket) * 1000)::int8::text AS ms, x.token_address, t.symbol, t.decimals, t.currency, x.payments_count AS n, x.amount_sum_wei::text AS s
       FROM ${tokenTable} x LEFT JOIN tokens t ON t.address = x.token_address
       WHERE ${keyed}x.bucket >= $1 AND x.bucket < $2 AND x.payments_count > 0`,
      values,
    ),
  ]);
  const byMs = new Map(rows.map((r) => [Number(r.ms), r]));
  const tokensByMs = new Map<number, TokenAmount[]>();
  for (const r of tokenRows) {
    const ms = Number(r.ms);
    let list = tokensByMs.get(ms);
    if (!list) tokensByMs.set(ms, (list = []));
    list.push({ tokenAddress: r.token_address, symbol: r.symbol, decimals: r.decimals, currency: r.currency, txCount: r.n, amountSumWei: BigInt(r.s) });
  }
  const points: SeriesPoint[] = [];
  for (let t = from.getTime(); t < to.getTime(); t += step) {
    const r = byMs.get(t);
    points.push({
      t: new Date(t),
      txCount: r ? Number(r.n) : 0,
      amountSumWei: r ? BigInt(r.s) : 0n,
      byToken: tokensByMs.get(t)?.sort(byAmountThenToken) ?? [],
    });
  }
  return { window: w.name, bucket: b, from, to, points };
}
