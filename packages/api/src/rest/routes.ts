import { getAgent } from "./getAgent.ts";
import { getDashboard } from "./getDashboard.ts";
import { getEvent } from "./getEvent.ts";
import { getOpenApi } from "./getOpenApi.ts";
import { getPreviousWindow } from "./getPreviousWindow.ts";
import { getProviderDetail } from "./getProviderDetail.ts";
import { getSeries } from "./getSeries.ts";
import { getService } from "./getService.ts";
import { listAgentEvents } from "./listAgentEvents.ts";
import { listAgents } from "./listAgents.ts";
import { listServiceEvents } from "./listServiceEvents.ts";
import { listServices } from "./listServices.ts";
import { search } from "./search.ts";
import type { RestHandler } from "./types.ts";

export interface Route {
  /** Path template; `:name` matches one non-empty segment. */
  path: string;
  method: "GET";
  handle: RestHandler;
}

/** Every REST path. openapi.ts describes each of them; a test checks the two lists agree. */
export const ROUTES: readonly Route[] = [
  { path: "/api/dashboard", method: "GET", handle: getDashboard },
  { path: "/api/services", method: "GET", handle: listServices },
  { path: "/api/services/:id", method: "GET", handle: getService },
  { path: "/api/services/:id/events", method: "GET", handle: listServiceEvents },
  { path: "/api/agents", method: "GET", handle: listAgents },
  { path: "/api/agents/:id", method: "GET", handle: getAgent },
  { path: "/api/agents/:id/events", method: "GET", handle: listAgentEvents },
  { path: "/api/events/:id", method: "GET", handle: getEvent },
  { path: "/api/search", method: "GET", handle: search },
  // The explorer's reads (docs/web.md).
  { path: "/api/dashboard/previous", method: "GET", handle: getPreviousWindow },
  { path: "/api/series", method: "GET", handle: getSeries },
  { path: "/api/providers/:key", method: "GET", handle: getProviderDetail },
  { path: "/api/openapi.json", method: "GET", handle: getOpenApi },
];
