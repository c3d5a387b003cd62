import { decodeOffsetCursor, encodeOffsetCursor } from "./cursor.ts";
import { hexPrefixRange } from "./hexPrefixRange.ts";
import { escapeLike } from "./likePattern.ts";
import { loadWallets } from "./loadWallets.ts";
import type { EntitySearchHit, Page, ServiceContext } from "./types.ts";

/**
 * Entities whose id or label contains the text (case-insensitive; trigram indexes), or with a wallet equal to or
 * starting with it (primary-key range). Ranked: exact id/label/wallet, then prefix, then substring; then id.
 */
export async function searchEntities(ctx: ServiceContext, q: string, page: { limit: number; after: string | null }): Promise<Page<EntitySearchHit>> {
  const offset = decodeOffsetCursor(page.after);
  const lower = q.toLowerCase();
  const escaped = escapeLike(q);
  const wallets = hexPrefixRange(q);
  const { rows } = await ctx.db.query<{ id: string; label: string; category: string; kind: string; active: boolean }>(
    `WITH hits AS (
       SELECT id, CASE WHEN lower(id) = $3 OR lower(label) = $3 THEN 0 WHEN id ILIKE $2 OR label ILIKE $2 THEN 1 ELSE 2 END AS rank
       FROM entities WHERE id ILIKE $1 OR label ILIKE $1
       UNION ALL
       SELECT entity_id, CASE WHEN address = $3 THEN 0 ELSE 1 END
       FROM entity_wallets WHERE $4::text IS NOT NULL AND address BETWEEN $4 AND $5
     )
     SELECT e.id, e.label, e.category, e.kind, e.active
     FROM (SELECT id, min(rank) AS rank FROM hits GROUP BY id) h JOIN entities e ON e.id = h.id
     ORDER BY h.rank, e.id OFFSET $6 LIMIT $7`,
    [`%${escaped}%`, `${escaped}%`, lower, wallets?.low ?? null, wallets?.high ?? null, offset, page.limit + 1],
  );
  const more = rows.length > page.limit;
  const heads = more ? rows.slice(0, page.limit) : rows;
  const walletLists = await loadWallets(
    ctx,
    heads.map((h) => h.id),
  );
  return {
    items: heads.map((h, i) => ({ ...h, wallets: walletLists[i]! })),
    nextCursor: more ? encodeOffsetCursor(offset + page.limit) : null,
  };
}
