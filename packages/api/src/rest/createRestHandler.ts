import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { ApiError } from "../errors.ts";
import { sendError } from "../http/sendError.ts";
import { sendJson } from "../http/sendJson.ts";
import type { Services } from "../services/createServices.ts";
import { ERROR_STATUS } from "./errorStatus.ts";
import { matchRoutes } from "./matchRoute.ts";
import { ROUTES, type Route } from "./routes.ts";

export const CORS_PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, last-event-id",
  "access-control-max-age": "86400",
};

/**
 * The REST shims under /api: route table → handler → services; JSON bodies with open CORS; typed errors
 * mapped to 4xx by ERROR_STATUS; unknown paths 404 `not_found`, other methods 405 `method_not_allowed`.
 */
export function createRestHandler(deps: { services: Services; log: Logger; routes?: readonly Route[] }) {
  const routes = deps.routes ?? ROUTES;
  return async function handleRest(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    try {
      const matches = matchRoutes(routes, url.pathname);
      if (matches.length === 0) throw new ApiError("not_found", `no route for ${method} ${url.pathname}`);
      const allowed = [...new Set(matches.map((m) => m.route.method))];
      if (method === "OPTIONS") {
        res.writeHead(204, CORS_PREFLIGHT_HEADERS);
        res.end();
        return;
      }
      const match = matches.find((m) => m.route.method === method || (method === "HEAD" && m.route.method === "GET"));
      if (!match) {
        return sendError(res, 405, "method_not_allowed", `${method} is not allowed on ${url.pathname}`, {
          allow: [...allowed, "HEAD", "OPTIONS"].join(", "),
        });
      }
      const out = await match.route.handle({ params: match.params, query: url.searchParams, services: deps.services });
      sendJson(res, out.status ?? 200, out.body, { "cache-control": "no-cache", ...out.headers });
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      if (error instanceof ApiError) return sendError(res, ERROR_STATUS[error.code], error.code, error.message);
      deps.log.error({ err: error, path: url.pathname }, "unhandled REST error");
      sendError(res, 500, "internal_error", "internal error");
    }
  };
}
