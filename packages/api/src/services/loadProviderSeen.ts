import type { ProviderSeen, ServiceContext } from "./types.ts";

/**
 * First and last time each provider was paid: the start of the first and of the last UTC hour with a routed
 * payment (provider_activity_hourly, all time). Null for an unknown key.
 */
export async function loadProviderSeen(ctx: ServiceContext, keys: readonly string[]): Promise<(ProviderSeen | null)[]> {
  if (keys.length === 0) return [];
  const { rows } = await ctx.db.query<{ provider_key: string; first: Date; last: Date }>(
    `SELECT provider_key, min(bucket) AS first, max(bucket) AS last FROM provider_activity_hourly
     WHERE provider_key = ANY($1::text[]) GROUP BY provider_key`,
    [keys],
  );
  const byKey = new Map(rows.map((r) => [r.provider_key, { firstSeenAt: r.first, lastSeenAt: r.last }]));
  return keys.map((k) => byKey.get(k) ?? null);
}
