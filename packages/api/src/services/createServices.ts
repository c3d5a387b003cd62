import { createTtlCache } from "./createTtlCache.ts";
import { findEntity, getEntityDetail } from "./getEntityDetail.ts";
import { getDashboard } from "./getDashboard.ts";
import { getActivitySeries } from "./getActivitySeries.ts";
import { getEvent } from "./getEvent.ts";
import { getPreviousWindow } from "./getPreviousWindow.ts";
import { getProvider } from "./getProvider.ts";
import { listEntities } from "./listEntities.ts";
import { listProviders } from "./listProviders.ts";
import { listTokens } from "./listTokens.ts";
import { loadEntities } from "./loadEntities.ts";
import { loadEntityEventPages } from "./loadEntityEventPages.ts";
import { loadEntityTotals } from "./loadEntityTotals.ts";
import { loadEntityTrend } from "./loadEntityTrend.ts";
import { loadEventsByIds } from "./loadEventsByIds.ts";
import { loadEventsByTxHash } from "./loadEventsByTxHash.ts";
import { loadLastEventAt } from "./loadLastEventAt.ts";
import { loadProviderSeen } from "./loadProviderSeen.ts";
import { loadSessions } from "./loadSessions.ts";
import { loadWallets } from "./loadWallets.ts";
import { loadWindowStats } from "./loadWindowStats.ts";
import { parseWindow } from "./resolveWindow.ts";
import { search } from "./search.ts";
import { searchAddresses } from "./searchAddresses.ts";
import { searchEntities } from "./searchEntities.ts";
import { searchEvents } from "./searchEvents.ts";
import type { Dashboard, Db, EntityKind, EventRecord, Page, ServiceContext } from "./types.ts";

export interface ServicesOptions {
  db: Db;
  /** Live methodology version (default v0.1). */
  version?: string;
  /** Clock (tests inject one). */
  now?: () => Date;
  /** In-process dashboard cache TTL per window (default 5 s; 0 = single-flight only). */
  dashboardCacheTtlMs?: number;
}

/** The read services, bound to one database and version: the only thing REST and GraphQL call. */
export function createServices(options: ServicesOptions) {
  const ctx: ServiceContext = { db: options.db, version: options.version ?? "v0.1", now: options.now ?? (() => new Date()) };
  const dashboardCache = createTtlCache<Dashboard>(options.dashboardCacheTtlMs ?? 5_000);
  const bind =
    <A extends unknown[], R>(fn: (c: ServiceContext, ...args: A) => R) =>
    (...args: A): R =>
      fn(ctx, ...args);

  return {
    context: ctx,
    /** Cached per window (validated first, so bad input never reaches the cache). */
    getDashboard(window: string): Promise<Dashboard> {
      const name = parseWindow(window);
      return dashboardCache.get(name, () => getDashboard(ctx, name));
    },
    clearDashboardCache: () => dashboardCache.clear(),
    listEntities: bind(listEntities),
    listTokens: bind(listTokens),
    getEntityDetail: bind(getEntityDetail),
    findEntity: bind(findEntity),
    listEntityEvents: async (id: string, page: { limit: number; before: bigint | null }): Promise<Page<EventRecord>> =>
      (await loadEntityEventPages(ctx, [id], page))[0]!,
    getEvent: bind(getEvent),
    search: bind(search),
    searchEvents: bind(searchEvents),
    searchEntities: bind(searchEntities),
    searchAddresses: bind(searchAddresses),
    listProviders: bind(listProviders),
    // The explorer's reads (docs/web.md): time series, the previous window's figures, one provider.
    getActivitySeries: bind(getActivitySeries),
    getPreviousWindow: bind(getPreviousWindow),
    getProvider: bind(getProvider),
    // Batch loaders (GraphQL wraps them in per-request DataLoaders).
    loadEntities: bind(loadEntities),
    loadWallets: bind(loadWallets),
    loadWindowStats: bind(loadWindowStats),
    loadLastEventAt: bind(loadLastEventAt),
    loadEntityTotals: bind(loadEntityTotals),
    loadEntityTrend: bind(loadEntityTrend),
    loadEntityEventPages: bind(loadEntityEventPages),
    loadEventsByIds: bind(loadEventsByIds),
    loadEventsByTxHash: bind(loadEventsByTxHash),
    loadSessions: bind(loadSessions),
    loadProviderSeen: bind(loadProviderSeen),
  };
}

export type Services = ReturnType<typeof createServices>;
export type { EntityKind };
