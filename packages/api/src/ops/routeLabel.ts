import { matchRoutes } from "../rest/matchRoute.ts";
import { ROUTES, type Route } from "../rest/routes.ts";

/** Non-REST paths served by the app, labelled as themselves. */
export const FIXED_ROUTES: readonly string[] = [
  "/graphql", "/graphql/stream", "/healthz", "/readyz", "/metrics", "/api/feed", "/approve", "/approve/app.js", "/mcp",
  "/api/webhooks",
  ...["webauthn/register/options", "webauthn/register/verify", "webauthn/auth/options", "webauthn/auth/verify", "me", "logout",
    "device/start", "device/poll", "device/lookup", "device/approve-init", "device/approve-finalize", "pay", "session",
    "session/revoke", "relay", "payments"].map((p) => `/api/wallet/${p}`),
];

/** Webhook paths with ids, as templates (their own router lives in webhooks/). */
const WEBHOOK_TEMPLATES: [RegExp, string][] = [
  [/^\/api\/webhooks\/[^/]+$/, "/api/webhooks/:id"],
  [/^\/api\/webhooks\/[^/]+\/(verify|rotate-secret|pause|resume|deliveries)$/, "/api/webhooks/:id/$1"],
  [/^\/api\/webhooks\/[^/]+\/deliveries\/[^/]+\/redeliver$/, "/api/webhooks/:id/deliveries/:deliveryId/redeliver"],
];

/** Label of every request that matched no route (404s, scanners): one value, so cardinality stays bounded. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * The route template of a path for metrics and logs (`/api/services/:id`, `/graphql`, …), never the raw URL: the label
 * set is the route table plus FIXED_ROUTES plus `unmatched`, whatever clients send. A trailing slash is ignored.
 */
export function routeLabel(pathname: string, routes: readonly Route[] = ROUTES): string {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  if (FIXED_ROUTES.includes(path)) return path;
  for (const [pattern, template] of WEBHOOK_TEMPLATES) {
    const m = pattern.exec(path);
    if (m) return template.replace("$1", m[1] ?? "");
  }
  if (path === "/api" || path.startsWith("/api/")) {
    const match = matchRoutes(routes, path)[0];
    if (match) return match.route.path;
  }
  return UNMATCHED_ROUTE;
}
