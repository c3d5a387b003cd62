import type { Services } from "../services/createServices.ts";

export interface RestRequest {
  /** Path parameters, decoded (`:id`). */
  params: Record<string, string>;
  query: URLSearchParams;
  services: Services;
}

export interface RestResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type RestHandler = (req: RestRequest) => Promise<RestResponse>;
