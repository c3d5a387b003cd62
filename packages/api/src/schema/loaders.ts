import DataLoader from "dataloader";
import { loadEntityTokenSummary } from "../services/loadEntityTokenSummary.ts";
import { loadWindowTokenStats } from "../services/loadWindowTokenStats.ts";
import type {
  EntityHead,
  EntityTokenSummary,
  EntityTotals,
  EventRecord,
  Page,
  ProviderDetail,
  ProviderSeen,
  SessionLife,
  TrendPoint,
  WindowStats,
  WindowTokenStats,
} from "../services/types.ts";
import type { GraphqlContext } from "./builder.ts";
import { createRequestCache } from "./requestCache.ts";

// Per-request DataLoaders shared by several fields (one instance per context object, i.e. per request), kept on the
// context and released when its execution is done (requestCache.ts says why).
// Single-field relations use the Pothos dataloader plugin (`t.loadable`) next to their field instead.

export const entityLoader = createRequestCache((ctx: GraphqlContext) => new DataLoader<string, EntityHead | null>((ids) => ctx.services.loadEntities(ids)));

export const walletsLoader = createRequestCache((ctx: GraphqlContext) => new DataLoader<string, string[]>((ids) => ctx.services.loadWallets(ids)));

export const lastEventAtLoader = createRequestCache((ctx: GraphqlContext) => new DataLoader<string, Date | null>((ids) => ctx.services.loadLastEventAt(ids)));

export const windowStatsLoader = createRequestCache((ctx: GraphqlContext) => new DataLoader<string, WindowStats>((ids) => ctx.services.loadWindowStats(ids)));

export const windowTokenStatsLoader = createRequestCache(
  (ctx: GraphqlContext) => new DataLoader<string, WindowTokenStats>((ids) => loadWindowTokenStats(ctx.services.context, ids)),
);

/** Entities' totals and trend split by token (EntityTotals.byToken / feesByToken, TrendPoint.byToken). */
export const entityTokenSummaryLoader = createRequestCache(
  (ctx: GraphqlContext) => new DataLoader<string, EntityTokenSummary>((ids) => loadEntityTokenSummary(ctx.services.context, ids)),
);

export const eventLoader = createRequestCache(
  (ctx: GraphqlContext) => new DataLoader<bigint, EventRecord | null, string>((ids) => ctx.services.loadEventsByIds(ids), { cacheKeyFn: String }),
);

export const txEventsLoader = createRequestCache(
  (ctx: GraphqlContext) => new DataLoader<string, EventRecord[]>((hashes) => ctx.services.loadEventsByTxHash(hashes)),
);

/** Session rows' channels (Event.session): one statement for every channel of the request. */
export const sessionLoader = createRequestCache(
  (ctx: GraphqlContext) => new DataLoader<string, SessionLife | null>((channels) => ctx.services.loadSessions(channels)),
);

export const providerSeenLoader = createRequestCache(
  (ctx: GraphqlContext) => new DataLoader<string, ProviderSeen | null>((keys) => ctx.services.loadProviderSeen(keys)),
);

export const totalsLoader = createRequestCache((ctx: GraphqlContext) => new DataLoader<string, EntityTotals>((ids) => ctx.services.loadEntityTotals(ids)));

export const trendLoader = createRequestCache((ctx: GraphqlContext) => new DataLoader<string, TrendPoint[]>((ids) => ctx.services.loadEntityTrend(ids)));

const eventPageLoaders = createRequestCache(() => new Map<string, DataLoader<string, Page<EventRecord>>>());

/** Entities' pages of rows for one (limit, before): one statement for every entity asking the same page. */
export function eventPageLoader(ctx: GraphqlContext, page: { limit: number; before: bigint | null }): DataLoader<string, Page<EventRecord>> {
  const key = `${page.limit}:${page.before ?? ""}`;
  const loaders = eventPageLoaders(ctx);
  let loader = loaders.get(key);
  if (!loader) loaders.set(key, (loader = new DataLoader((ids) => ctx.services.loadEntityEventPages(ids, page))));
  return loader;
}

const providerPages = createRequestCache(() => new Map<string, Promise<Page<ProviderDetail>>>());

/** A page of gateway providers, read once per request and page. */
export function providerPage(ctx: GraphqlContext, page: { limit: number; after: string | null }): Promise<Page<ProviderDetail>> {
  const key = `${page.limit}:${page.after ?? ""}`;
  const pages = providerPages(ctx);
  let p = pages.get(key);
  if (!p) pages.set(key, (p = ctx.services.listProviders(page)));
  return p;
}
