import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { ApiError } from "../errors.ts";
import { sendApiError, sendError } from "../http/sendError.ts";
import { jsonAnswer, writeJsonAnswer, type JsonAnswer } from "../http/jsonAnswer.ts";
import type { Services } from "../services/createServices.ts";
import { createTtlCache } from "../services/createTtlCache.ts";
import { matchRoutes } from "./matchRoute.ts";
import { ROUTES, type Route } from "./routes.ts";
import type { RestResponse } from "./types.ts";

export const CORS_PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, last-event-id",
  "access-control-max-age": "86400",
};

/**
 * The REST shims under /api: route table → handler → services; JSON bodies with open CORS; typed errors
 * mapped to 4xx by ERROR_STATUS; unknown paths 404 `not_found`, other methods 405 `method_not_allowed`.
 *
 * Request coalescing: identical reads (same path and query string) that arrive while one is being computed share
 * its answer, serialized once; nothing is kept once it is sent, so the next request computes again (docs/api.md,
 * Caching). Invariant: a route's answer depends only on its path and query (every route here is a public GET).
 * A handler that returns the very same response object again (the cached dashboard) has it serialized only once.
 */
export function createRestHandler(deps: { services: Services; log: Logger; routes?: readonly Route[] }) {
  const routes = deps.routes ?? ROUTES;
  const inflight = createTtlCache<JsonAnswer>(0);
  // Invariant: response objects are never mutated once returned, so one serialization serves every return of one.
  const serialized = new WeakMap<RestResponse, JsonAnswer>();
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
        return sendError(res, "method_not_allowed", `${method} is not allowed on ${url.pathname}`, {
          allow: [...allowed, "HEAD", "OPTIONS"].join(", "),
        });
      }
      const answer = await inflight.get(`${url.pathname}${url.search}`, async () => {
        const out = await match.route.handle({ params: match.params, query: url.searchParams, services: deps.services });
        let answer = serialized.get(out);
        if (!answer) serialized.set(out, (answer = jsonAnswer(out.status ?? 200, out.body, { "cache-control": "no-cache", ...out.headers })));
        return answer;
      });
      writeJsonAnswer(res, answer);
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      if (error instanceof ApiError) return sendApiError(res, error);
      deps.log.error({ err: error, path: url.pathname }, "unhandled REST error");
      sendError(res, "internal_error", "internal error");
    }
  };
}
