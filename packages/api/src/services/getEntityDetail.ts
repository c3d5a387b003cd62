import { entityKindOf } from "./entityKindOf.ts";
import { listProviders } from "./listProviders.ts";
import { loadEntities } from "./loadEntities.ts";
import { loadEntityEventPages } from "./loadEntityEventPages.ts";
import { loadEntitySummary } from "./loadEntitySummary.ts";
import { loadEntityTokenSummary } from "./loadEntityTokenSummary.ts";
import type { EntityDetail, EntityHead, EntityKind, ServiceContext } from "./types.ts";

export const GATEWAY_ID = "tempo-gateway-mpp";
export const DETAIL_RECENT_EVENTS = 50;
/** Providers listed in the gateway's detail; the complete list is paginated (GraphQL `providers`). */
export const DETAIL_PROVIDERS = 100;

/** An entity id as it may appear in a path: printable, bounded. Anything else cannot exist. */
export function isPlausibleEntityId(id: string): boolean {
  return id.length > 0 && id.length <= 200 && !/[\u0000-\u001f\u007f]/.test(id);
}

/** The entity head when `id` exists and is of `kind` (a service id asked as an agent is not found). */
export async function findEntity(ctx: ServiceContext, kind: EntityKind, id: string): Promise<EntityHead | null> {
  if (!isPlausibleEntityId(id) || entityKindOf(id) !== kind) return null;
  const [head] = await loadEntities(ctx, [id]);
  return head ?? null;
}

/**
 * Service or agent detail: head, wallets, all-time totals, 30-day trend (one statement), the same split by token
 * (one statement), newest 50 rows; gateway
 * providers. The statements run at once, without waiting for the head: for an unknown id the rows' index probe
 * finds nothing, and providers are only read for the gateway's id.
 */
export async function getEntityDetail(ctx: ServiceContext, kind: EntityKind, id: string): Promise<EntityDetail | null> {
  if (!isPlausibleEntityId(id) || entityKindOf(id) !== kind) return null;
  const [summary, [tokens], [recentEvents], providers] = await Promise.all([
    loadEntitySummary(ctx, id),
    loadEntityTokenSummary(ctx, [id]),
    loadEntityEventPages(ctx, [id], { limit: DETAIL_RECENT_EVENTS, before: null }),
    id === GATEWAY_ID ? listProviders(ctx, { limit: DETAIL_PROVIDERS, after: null }) : null,
  ]);
  if (!summary) return null;
  const detail: EntityDetail = { ...summary, recentEvents: recentEvents!, tokens: tokens! };
  if (providers) detail.providers = providers.items;
  return detail;
}
