import type { RouteResult } from "../routes/Route.ts";
import type { Services } from "../services/createServices.ts";

export interface RestRequest<Query = unknown> {
  /** Path parameters, decoded (`:id`). */
  params: Record<string, string>;
  /** What the route's `input.query` parsed (readRoutes.ts). */
  query: Query;
  services: Services;
}

/** A read handler's answer: the one result type of every route (routes/Route.ts). */
export type RestResponse = RouteResult;

export type RestHandler<Query = unknown> = (req: RestRequest<Query>) => Promise<RestResponse>;
