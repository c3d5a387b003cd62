import { labelProvider, type ProviderLabels } from "./labelProvider.ts";
import { loadTokenBreakdowns } from "./loadTokenBreakdowns.ts";
import { normalizeProviderKey } from "./parseProviderKey.ts";
import type { ProviderDetail, ProviderPattern, ServiceContext } from "./types.ts";

/**
 * One gateway provider by its key — the provider address (Pattern A) or the memo fingerprint (Pattern B) — with its
 * labels and all-time totals (provider_activity_total). A Pattern B provider is also found by the address its
 * fingerprint label names, and (methodology v0.2, rule 3: one provider, two keys) a provider keyed by its address is
 * also found by a fingerprint linked to that address, which is the key its gateway memos carry (event pages link it).
 * An exact key wins. Case-insensitive; null when unknown or not a key.
 */
export async function getProvider(ctx: ServiceContext, key: string): Promise<ProviderDetail | null> {
  const k = normalizeProviderKey(key);
  if (k === null) return null;
  const { rows } = await ctx.db.query<
    ProviderLabels & { provider_key: string; pattern: ProviderPattern; n: string; s: string; first_seen: Date; last_seen: Date }
  >(
    `SELECT t.provider_key, t.pattern, t.payments_count::text AS n, t.amount_sum_wei::text AS s, t.first_seen, t.last_seen,
            e.label AS entity_label, al.label AS address_label, coalesce(fl.label, se.label) AS fp_label, fl.provider_address AS fp_address
     FROM provider_activity_total t
     LEFT JOIN entity_wallets w ON w.address = t.provider_key
     LEFT JOIN entities e ON e.id = w.entity_id
     LEFT JOIN address_labels al ON al.address = t.provider_key
     LEFT JOIN fingerprint_labels fl ON fl.fingerprint = t.provider_key
     LEFT JOIN server_ids si ON si.fingerprint = t.provider_key
     LEFT JOIN entities se ON se.id = si.entity_id
     WHERE t.provider_key = $1 OR t.provider_key IN (SELECT fingerprint FROM fingerprint_labels WHERE provider_address = $1)
        OR t.provider_key IN (SELECT provider_address FROM fingerprint_labels WHERE fingerprint = $1)
     ORDER BY (t.provider_key = $1) DESC, t.amount_sum_wei DESC LIMIT 1`,
    [k],
  );
  const r = rows[0];
  if (!r) return null;
  const [tokens] = await loadTokenBreakdowns(ctx, "provider", [r.provider_key], { grain: "daily", from: null, to: null });
  const p = labelProvider(
    { key: r.provider_key, pattern: r.pattern, txCount: Number(r.n), amountSumWei: BigInt(r.s), byToken: tokens!.byToken },
    r,
  ) as ProviderDetail;
  p.firstSeenAt = r.first_seen;
  p.lastSeenAt = r.last_seen;
  return p;
}
