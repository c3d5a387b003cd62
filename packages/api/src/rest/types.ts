import type { RouteResult } from "../routes/Route.ts";
import type { Services } from "../services/createServices.ts";

export interface RestRequest {
  /** Path parameters, decoded (`:id`). */
  params: Record<string, string>;
  query: URLSearchParams;
  services: Services;
}

/** A read handler's answer: the one result type of every route (routes/Route.ts). */
export type RestResponse = RouteResult;

export type RestHandler = (req: RestRequest) => Promise<RestResponse>;
