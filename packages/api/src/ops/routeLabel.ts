import { matchRoutes } from "../rest/matchRoute.ts";
import { ROUTES, type Route } from "../rest/routes.ts";

/** Non-REST paths served by the app, labelled as themselves. */
export const FIXED_ROUTES: readonly string[] = ["/graphql", "/graphql/stream", "/healthz", "/readyz", "/metrics", "/api/feed"];

/** Label of every request that matched no route (404s, scanners): one value, so cardinality stays bounded. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * The route template of a path for metrics and logs (`/api/services/:id`, `/graphql`, …), never the raw URL: the label
 * set is the route table plus FIXED_ROUTES plus `unmatched`, whatever clients send. A trailing slash is ignored.
 */
export function routeLabel(pathname: string, routes: readonly Route[] = ROUTES): string {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  if (FIXED_ROUTES.includes(path)) return path;
  if (path === "/api" || path.startsWith("/api/")) {
    const match = matchRoutes(routes, path)[0];
    if (match) return match.route.path;
  }
  return UNMATCHED_ROUTE;
}
