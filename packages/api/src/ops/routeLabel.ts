import { compileRoutes } from "../routes/compileRoutes.ts";
import { ALL_ROUTES } from "../routes/mountRoutes.ts";
import type { AnyRoute } from "../routes/Route.ts";

/** Label of every request that matched no route (404s, scanners): one value, so cardinality stays bounded. */
export const UNMATCHED_ROUTE = "unmatched";

const table = compileRoutes(ALL_ROUTES);

/**
 * The route template of a path for metrics and logs (`/api/services/:id`, `/graphql`, …), never the raw URL: the label
 * set is the route table (routes/mountRoutes.ts) plus `unmatched`, whatever clients send. A trailing slash is ignored.
 */
export function routeLabel(pathname: string, routes?: readonly AnyRoute[]): string {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  const match = (routes ? compileRoutes(routes) : table).match(path)[0];
  return match ? match.route.path : UNMATCHED_ROUTE;
}
