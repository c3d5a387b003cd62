import type { ProviderPattern, ProviderSummary, ServiceContext } from "./types.ts";

export interface ProviderAggregate {
  key: string;
  pattern: ProviderPattern;
  txCount: number;
  amountSumWei: bigint;
}

/**
 * Adds address, fingerprint and label to provider aggregates. Pattern A (`address`): the key is the
 * provider address, labelled by its entity, else its address_labels entry. Pattern B (`fingerprint`): the key
 * is the memo fingerprint, labelled by fingerprint_labels (whose provider_address, when known, is the address).
 */
export async function describeProviders(ctx: ServiceContext, aggregates: readonly ProviderAggregate[]): Promise<ProviderSummary[]> {
  if (aggregates.length === 0) return [];
  const { rows } = await ctx.db.query<{ key: string; entity_label: string | null; address_label: string | null; fp_label: string | null; fp_address: string | null }>(
    `SELECT k.key, e.label AS entity_label, al.label AS address_label, fl.label AS fp_label, fl.provider_address AS fp_address
     FROM unnest($1::text[]) AS k(key)
     LEFT JOIN entity_wallets w ON w.address = k.key
     LEFT JOIN entities e ON e.id = w.entity_id
     LEFT JOIN address_labels al ON al.address = k.key
     LEFT JOIN fingerprint_labels fl ON fl.fingerprint = k.key`,
    [aggregates.map((a) => a.key)],
  );
  const byKey = new Map(rows.map((r) => [r.key, r]));
  return aggregates.map((a) => {
    const r = byKey.get(a.key);
    return a.pattern === "address"
      ? { ...a, address: a.key, fingerprint: null, label: r?.entity_label ?? r?.address_label ?? null }
      : { ...a, address: r?.fp_address ?? null, fingerprint: a.key, label: r?.fp_label ?? null };
  });
}
