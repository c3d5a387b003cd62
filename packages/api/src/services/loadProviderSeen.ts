import type { ProviderSeen, ServiceContext } from "./types.ts";

/**
 * First and last time each provider was paid: the start of the first and of the last UTC hour with a routed
 * payment (provider_activity_hourly, all time). Null for an unknown key.
 */
export async function loadProviderSeen(ctx: ServiceContext, keys: readonly string[]): Promise<(ProviderSeen | null)[]> {
  if (keys.length === 0) return [];
  const { rows } = await ctx.db.query<{ provider_key: string; first: Date; last: Date }>(
    // Two primary-key probes per provider (first and last bucket) instead of aggregating every hour it was paid in.
    `SELECT k.key AS provider_key,
            (SELECT p.bucket FROM provider_activity_hourly p WHERE p.provider_key = k.key ORDER BY p.bucket ASC LIMIT 1) AS first,
            (SELECT p.bucket FROM provider_activity_hourly p WHERE p.provider_key = k.key ORDER BY p.bucket DESC LIMIT 1) AS last
     FROM unnest($1::text[]) AS k(key)`,
    [keys],
  );
  const byKey = new Map(rows.filter((r) => r.first !== null).map((r) => [r.provider_key, { firstSeenAt: r.first, lastSeenAt: r.last }]));
  return keys.map((k) => byKey.get(k) ?? null);
}
