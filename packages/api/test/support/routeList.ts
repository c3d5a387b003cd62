import { openApiPath, routeOperations } from "../../src/routes/buildOpenApiDocument.ts";
import { ALL_ROUTES, ROUTE_TABLE } from "../../src/routes/mountRoutes.ts";
import type { AnyRoute } from "../../src/routes/Route.ts";

/** One method of one route: its declaration, path template (`:id`) and OpenAPI template (`{id}`). */
export interface ListedRoute {
  method: string;
  path: string;
  template: string;
  route: AnyRoute;
}

/**
 * The methods the routes of the table declare (the raw routes' listed methods; a `*` route by its documented
 * operations), for tests that walk every route: the input fuzz, odd Authorization headers, CSRF, the document.
 */
export function listRoutes(routes: readonly AnyRoute[] = ALL_ROUTES): ListedRoute[] {
  return routes.flatMap((route) => {
    const methods =
      route.kind === "raw"
        ? route.methods === "*"
          ? routeOperations(route).map(([m]) => m.toUpperCase())
          : route.methods.filter((m) => m !== "HEAD")
        : [route.method];
    return methods.map((method) => ({ method, path: route.path, template: openApiPath(route.path), route }));
  });
}

export { ROUTE_TABLE };
