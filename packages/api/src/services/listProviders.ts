import { z } from "zod";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { describeProviders, type ProviderAggregate } from "./describeProviders.ts";
import { loadProviderSeen } from "./loadProviderSeen.ts";
import type { Page, ProviderDetail, ProviderPattern, ServiceContext } from "./types.ts";

const providerCursor = z.object({ a: z.string().regex(/^(0|[1-9][0-9]{0,77})$/), n: z.number().int().min(0), k: z.string().min(1).max(42) }).strict();

/**
 * Every gateway provider (all time, provider_activity_daily), by amount descending, then payment count
 * descending, then key; keyset-paginated on that order.
 */
export async function listProviders(ctx: ServiceContext, page: { limit: number; after: string | null }): Promise<Page<ProviderDetail>> {
  const after = page.after === null ? null : decodeCursor(page.after, providerCursor);
  const { rows } = await ctx.db.query<{ provider_key: string; pattern: ProviderPattern; n: string; s: string }>(
    `WITH agg AS (
       SELECT provider_key, min(pattern) AS pattern, sum(payments_count) AS n, sum(amount_sum_wei) AS s
       FROM provider_activity_daily GROUP BY provider_key
     )
     SELECT provider_key, pattern, n::text AS n, s::text AS s FROM agg
     WHERE $1::numeric IS NULL OR s < $1 OR (s = $1 AND (n < $2 OR (n = $2 AND provider_key > $3)))
     ORDER BY s DESC, n DESC, provider_key LIMIT $4`,
    [after?.a ?? null, after?.n ?? null, after?.k ?? null, page.limit + 1],
  );
  const more = rows.length > page.limit;
  const aggregates: ProviderAggregate[] = rows
    .slice(0, page.limit)
    .map((r) => ({ key: r.provider_key, pattern: r.pattern, txCount: Number(r.n), amountSumWei: BigInt(r.s) }));
  const [described, seen] = await Promise.all([describeProviders(ctx, aggregates), loadProviderSeen(ctx, aggregates.map((a) => a.key))]);
  const items = described.map((p, i) => ({ ...p, firstSeenAt: seen[i]!.firstSeenAt, lastSeenAt: seen[i]!.lastSeenAt }));
  const last = items.at(-1);
  return { items, nextCursor: more && last ? encodeCursor({ a: last.amountSumWei.toString(), n: last.txCount, k: last.key }) : null };
}
