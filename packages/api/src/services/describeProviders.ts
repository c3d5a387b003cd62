import { labelProvider, type ProviderAggregate, type ProviderLabels } from "./labelProvider.ts";
import type { ProviderSummary, ServiceContext } from "./types.ts";

/** Adds address, fingerprint and label to provider aggregates (see labelProvider), in one query. */
export async function describeProviders(ctx: ServiceContext, aggregates: readonly ProviderAggregate[]): Promise<ProviderSummary[]> {
  if (aggregates.length === 0) return [];
  const { rows } = await ctx.db.query<ProviderLabels & { key: string }>(
    `SELECT k.key, e.label AS entity_label, al.label AS address_label, coalesce(fl.label, se.label) AS fp_label, fl.provider_address AS fp_address
     FROM unnest($1::text[]) AS k(key)
     LEFT JOIN entity_wallets w ON w.address = k.key
     LEFT JOIN entities e ON e.id = w.entity_id
     LEFT JOIN address_labels al ON al.address = k.key
     LEFT JOIN fingerprint_labels fl ON fl.fingerprint = k.key
     LEFT JOIN server_ids si ON si.fingerprint = k.key
     LEFT JOIN entities se ON se.id = si.entity_id`,
    [aggregates.map((a) => a.key)],
  );
  const byKey = new Map(rows.map((r) => [r.key, r]));
  return aggregates.map((a) => labelProvider(a, byKey.get(a.key)));
}
