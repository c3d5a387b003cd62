import { z } from "zod";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { labelProvider, type ProviderLabels } from "./labelProvider.ts";
import { loadTokenBreakdowns } from "./loadTokenBreakdowns.ts";
import type { Page, ProviderDetail, ProviderPattern, ServiceContext } from "./types.ts";

const providerCursor = z.object({ a: z.string().regex(/^(0|[1-9][0-9]{0,77})$/), n: z.number().int().min(0), k: z.string().min(1).max(42) }).strict();

/** A page of provider_activity_total in the list's order (its order index), with each provider's labels. */
const pageSql = (afterCursor: boolean) => `
  SELECT t.provider_key, t.pattern, t.payments_count::text AS n, t.amount_sum_wei::text AS s,
         (extract(epoch FROM t.first_seen) * 1000)::int8::text AS first_ms, (extract(epoch FROM t.last_seen) * 1000)::int8::text AS last_ms,
         e.label AS entity_label, al.label AS address_label, coalesce(fl.label, se.label) AS fp_label, fl.provider_address AS fp_address
  FROM (SELECT * FROM provider_activity_total
        ${afterCursor ? "WHERE amount_sum_wei <= $2 AND (amount_sum_wei < $2 OR payments_count < $3 OR (payments_count = $3 AND provider_key > $4))" : ""}
        ORDER BY amount_sum_wei DESC, payments_count DESC, provider_key LIMIT $1) t
  LEFT JOIN entity_wallets w ON w.address = t.provider_key
  LEFT JOIN entities e ON e.id = w.entity_id
  LEFT JOIN address_labels al ON al.address = t.provider_key
  LEFT JOIN fingerprint_labels fl ON fl.fingerprint = t.provider_key
     LEFT JOIN server_ids si ON si.fingerprint = t.provider_key
     LEFT JOIN entities se ON se.id = si.entity_id
  ORDER BY t.amount_sum_wei DESC, t.payments_count DESC, t.provider_key`;
// Named (prepared once per connection): the plan of this five-table join is reused instead of made per request.
const FIRST_PAGE = { name: "listProviders.first", text: pageSql(false) };
const NEXT_PAGE = { name: "listProviders.after", text: pageSql(true) };

type Row = ProviderLabels & { provider_key: string; pattern: ProviderPattern; n: string; s: string; first_ms: string; last_ms: string };

/**
 * Every gateway provider (all time), by amount descending, then payment count descending, then key;
 * keyset-paginated on that order. One statement over provider_activity_total (one row per provider, kept by the
 * indexer with the other rollups).
 */
export async function listProviders(ctx: ServiceContext, page: { limit: number; after: string | null }): Promise<Page<ProviderDetail>> {
  const after = page.after === null ? null : decodeCursor(page.after, providerCursor);
  const { rows } = await ctx.db.query<Row>(
    after === null ? { ...FIRST_PAGE, values: [page.limit + 1] } : { ...NEXT_PAGE, values: [page.limit + 1, after.a, after.n, after.k] },
  );
  const more = rows.length > page.limit;
  const items: ProviderDetail[] = [];
  for (let i = 0; i < rows.length && i < page.limit; i++) {
    const r = rows[i]!;
    const p = labelProvider({ key: r.provider_key, pattern: r.pattern, txCount: Number(r.n), amountSumWei: BigInt(r.s), byToken: [] }, r) as ProviderDetail;
    p.firstSeenAt = new Date(Number(r.first_ms));
    p.lastSeenAt = new Date(Number(r.last_ms));
    items.push(p);
  }
  // All time per token (provider_token_activity_daily), one statement for the page.
  const tokens = await loadTokenBreakdowns(
    ctx,
    "provider",
    items.map((p) => p.key),
    { grain: "daily", from: null, to: null },
  );
  items.forEach((p, i) => (p.byToken = tokens[i]!.byToken));
  const last = items.at(-1);
  return { items, nextCursor: more && last ? encodeCursor({ a: last.amountSumWei.toString(), n: last.txCount, k: last.key }) : null };
}
