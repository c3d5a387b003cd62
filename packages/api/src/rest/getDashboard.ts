import type { z } from "zod";
import type { Dashboard } from "../services/types.ts";
import { dashboardJson } from "./serializers.ts";
import type { RestHandler, RestResponse } from "./types.ts";
import type { WINDOW_QUERY } from "./windowQuery.ts";

// One response per dashboard object: while the services' cache hands out the same dashboard (its TTL), every request
// gets the same response object, which the REST handler then serializes only once. Nothing here outlives the dashboard.
const responses = new WeakMap<Dashboard, RestResponse>();

/** GET /api/dashboard?w=24h|7d|30d|all (default 24h; `WINDOW_QUERY`); its Cache-Control is declared on the route (readRoutes.ts). */
export const getDashboard: RestHandler<z.output<typeof WINDOW_QUERY>> = async ({ query, services }) => {
  const dashboard = await services.getDashboard(query.w);
  let response = responses.get(dashboard);
  if (!response) responses.set(dashboard, (response = { body: dashboardJson(dashboard) }));
  return response;
};
