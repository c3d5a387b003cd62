import type { ProviderSeen, ServiceContext } from "./types.ts";

/**
 * First and last time each provider was paid: the start of the first and of the last UTC hour with a routed
 * payment (all time; provider_activity_total keeps both per provider). Null for an unknown key.
 */
export async function loadProviderSeen(ctx: ServiceContext, keys: readonly string[]): Promise<(ProviderSeen | null)[]> {
  if (keys.length === 0) return [];
  const { rows } = await ctx.db.query<{ provider_key: string; first_seen: Date; last_seen: Date }>(
    "SELECT provider_key, first_seen, last_seen FROM provider_activity_total WHERE provider_key = ANY($1::text[])",
    [keys],
  );
  const byKey = new Map(rows.map((r) => [r.provider_key, { firstSeenAt: r.first_seen, lastSeenAt: r.last_seen }]));
  return keys.map((k) => byKey.get(k) ?? null);
}
