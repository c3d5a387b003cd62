import { decodeOffsetCursor, encodeOffsetCursor } from "./cursor.ts";
import { hexPrefixRange } from "./hexPrefixRange.ts";
import { escapeLike } from "./likePattern.ts";
import type { AddressLabelRecord, Page, ServiceContext } from "./types.ts";

/**
 * Labelled addresses (address_labels) whose label contains the text (case-insensitive; trigram index) or whose
 * address equals or starts with it (primary-key range). Ranked: exact address/label, then prefix, then substring;
 * then address.
 */
export async function searchAddresses(ctx: ServiceContext, q: string, page: { limit: number; after: string | null }): Promise<Page<AddressLabelRecord>> {
  const offset = decodeOffsetCursor(page.after);
  const lower = q.toLowerCase();
  const escaped = escapeLike(q);
  const addresses = hexPrefixRange(q);
  const { rows } = await ctx.db.query<AddressLabelRecord>(
    `WITH hits AS (
       SELECT address, CASE WHEN lower(label) = $3 THEN 0 WHEN label ILIKE $2 THEN 1 ELSE 2 END AS rank
       FROM address_labels WHERE label ILIKE $1
       UNION ALL
       SELECT address, CASE WHEN address = $3 THEN 0 ELSE 1 END
       FROM address_labels WHERE $4::text IS NOT NULL AND address BETWEEN $4 AND $5
     )
     SELECT l.address, l.label, l.category, l.source
     FROM (SELECT address, min(rank) AS rank FROM hits GROUP BY address) h JOIN address_labels l ON l.address = h.address
     ORDER BY h.rank, l.address OFFSET $6 LIMIT $7`,
    [`%${escaped}%`, `${escaped}%`, lower, addresses?.low ?? null, addresses?.high ?? null, offset, page.limit + 1],
  );
  const more = rows.length > page.limit;
  return {
    items: (more ? rows.slice(0, page.limit) : rows).map((r) => ({ address: r.address, label: r.label, category: r.category ?? null, source: r.source })),
    nextCursor: more ? encodeOffsetCursor(offset + page.limit) : null,
  };
}
