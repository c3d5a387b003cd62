import { dashboardJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";

/** Edge cache: 5 minutes fresh, then served stale for 10 more while revalidating. */
export const DASHBOARD_CACHE_CONTROL = "public, s-maxage=300, stale-while-revalidate=600";

/** GET /api/dashboard?w=24h|7d|30d|all (default 24h). */
export const getDashboard: RestHandler = async ({ query, services }) => {
  const dashboard = await services.getDashboard(query.get("w") ?? "24h");
  return { body: dashboardJson(dashboard), headers: { "cache-control": DASHBOARD_CACHE_CONTROL } };
};
