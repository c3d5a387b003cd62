import { APP_ROUTES, type AppRouteDeps } from "./appRoutes.ts";
import { READ_ROUTES, type ReadDeps } from "../rest/readRoutes.ts";
import { WALLET_ROUTES, type WalletRouteDeps } from "../wallet/walletRoutes.ts";
import { WEBHOOK_ROUTES, type WebhookDeps } from "../webhooks/webhookRoutes.ts";
import type { Mounted } from "./createRouter.ts";
import type { AnyRoute } from "./Route.ts";

/** Every route of the app, by surface: what buildApp mounts, what the OpenAPI document and the route labels come from. */
export const ROUTE_TABLE = { read: READ_ROUTES, webhooks: WEBHOOK_ROUTES, wallet: WALLET_ROUTES, app: APP_ROUTES } as const;

/** The whole table, one list. */
export const ALL_ROUTES: readonly AnyRoute[] = Object.values(ROUTE_TABLE).flat();

/** What each surface's handlers need. */
export interface SurfaceDeps {
  read: ReadDeps;
  webhooks: WebhookDeps;
  wallet: WalletRouteDeps;
  app: AppRouteDeps;
}

/** Binds every surface's routes to what its handlers need: the table buildApp hands the router. */
export function mountRoutes(deps: SurfaceDeps): Mounted[] {
  return (Object.keys(ROUTE_TABLE) as (keyof SurfaceDeps)[]).flatMap((surface) =>
    (ROUTE_TABLE[surface] as readonly AnyRoute[]).map((route) => ({ path: route.path, exact: route.exact, route, deps: deps[surface] })),
  );
}
