import type { Dashboard } from "../services/types.ts";
import { dashboardJson } from "./serializers.ts";
import type { RestHandler, RestResponse } from "./types.ts";

// One response per dashboard object: while the services' cache hands out the same dashboard (its TTL), every request
// gets the same response object, which the REST handler then serializes only once. Nothing here outlives the dashboard.
const responses = new WeakMap<Dashboard, RestResponse>();

/** GET /api/dashboard?w=24h|7d|30d|all (default 24h); its Cache-Control is declared on the route (readRoutes.ts). */
export const getDashboard: RestHandler = async ({ query, services }) => {
  const dashboard = await services.getDashboard(query.get("w") ?? "24h");
  let response = responses.get(dashboard);
  if (!response) responses.set(dashboard, (response = { body: dashboardJson(dashboard) }));
  return response;
};
