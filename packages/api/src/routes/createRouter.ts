import type { IncomingMessage, ServerResponse } from "node:http";
import type pg from "pg";
import type { Logger } from "pino";
import { authenticate } from "../auth/authenticate.ts";
import { checkDuplicateAuthorization } from "../auth/checkDuplicateAuthorization.ts";
import { checkRequestOrigin } from "../auth/checkRequestOrigin.ts";
import { ApiError, ERROR_STATUS } from "../errors.ts";
import { sendApiError, sendError } from "../http/sendError.ts";
import { sendJson } from "../http/sendJson.ts";
import { createTtlCache } from "../services/createTtlCache.ts";
import { compileRoutes, type RouteMatch } from "./compileRoutes.ts";
import { READ_SURFACE } from "./surfaces.ts";
import { parseRouteInput } from "./parseRouteInput.ts";
import type { AnyRoute, JsonRoute, RouteRequest, RouteResult, Surface } from "./Route.ts";
import { type Answer, writeAnswer } from "./writeAnswer.ts";

/** A mounted route: its declaration and what its handler needs. */
export interface Mounted {
  path: string;
  exact?: boolean;
  route: AnyRoute;
  deps: unknown;
}

export interface RouterDeps {
  mounted: readonly Mounted[];
  db: pg.Pool;
  log: Logger;
  now: () => Date;
  /** Where our own pages run: the only origins the session cookie may act from (auth/checkRequestOrigin.ts). */
  origins: ReadonlySet<string>;
  /**
   * Headers added to every answer of the public read surface, computed after its reads (the `X-Ledger-Block` of read
   * routing, docs/api.md); absent = none.
   */
  readHeaders?: (req: IncomingMessage) => Promise<Record<string, string>>;
  /** Paths no route matched outside /api (pages, the HTML 404, the generic OPTIONS answer). */
  fallback: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;
}

const isApiPath = (p: string) => p === "/api" || p.startsWith("/api/");

function serialize(result: RouteResult, surface: Surface): Answer {
  const text = JSON.stringify(result.body);
  return {
    status: result.status ?? 200,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(text)),
      ...(surface.cors ? { "access-control-allow-origin": "*" } : {}),
      ...result.headers,
    },
    body: text,
  };
}

/** The route's Cache-Control for this request (its own policy, else its surface's; docs/api.md, Caching). */
const cacheControlOf = (route: JsonRoute, url: URL) =>
  typeof route.cacheControl === "function" ? route.cacheControl(url) : (route.cacheControl ?? route.surface.cacheControl);

/** A refusal before routing: in GraphQL's error shape on a GraphQL route, else the error body. */
function refuse(res: ServerResponse, matched: AnyRoute | undefined, code: "duplicate_authorization" | "cross_site_request", message: string): void {
  if (matched?.kind === "raw" && matched.graphqlErrors)
    sendJson(res, ERROR_STATUS[code], { errors: [{ message, extensions: { code } }] }, { "cache-control": "no-store" });
  else sendError(res, code, message);
}

/**
 * The app's one request pipeline over the mounted route table: refusals every path shares (two Authorization headers,
 * a cross-site request carrying the session cookie), one match (routes/compileRoutes.ts, compiled here once), the
 * surface's CORS preflight / 405 / HEAD, the route's `before` step (rate limits), the one authentication step
 * (auth/authenticate.ts: the principal with its loaded session), the declared input, the handler, and one writer of
 * its result and of every error (`{ error: { code, message } }` with the status of errors.ts). Unknown paths under
 * /api answer 404 `not_found`; others go to the fallback (pages).
 */
export function createRouter(deps: RouterDeps) {
  const table = compileRoutes(deps.mounted);
  const inflight = createTtlCache<Answer>(0);
  // Invariant: result objects are never mutated once returned, so one serialization serves every return of one (the cached dashboard).
  const serialized = new WeakMap<RouteResult, Answer>();

  async function runJson(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    route: JsonRoute,
    params: Record<string, string>,
    routeDeps: unknown,
  ): Promise<void> {
    if (route.before) await route.before(req, routeDeps);
    const principal =
      route.auth === "none" || route.authInHandler
        ? null
        : await authenticate(deps.db, req.headers, deps.now(), { mode: route.auth, optional: route.authOptional, allowInactive: route.allowInactive });
    const { query, body } = await parseRouteInput(route.input, url, req);
    const input: RouteRequest<unknown, unknown> = { req, url, params, query, principal, body };
    const extra = route.surface === READ_SURFACE && deps.readHeaders ? deps.readHeaders : null;
    const cacheControl = cacheControlOf(route, url);
    // Measured (bench:wallet, BENCHMARKS.md § issue 26): a route that does not coalesce is answered without the closure
    // and the serialization memo, which only a surface whose answers are shared needs (the read surface: coalesced and
    // cached result objects); a wallet or webhook result is built for its one request.
    if (!route.surface.coalesce)
      return writeAnswer(res, serialize(await route.handle(input, routeDeps), route.surface), cacheControl, extra ? await extra(req) : undefined);
    let key = `${url.pathname}${url.search}`;
    for (const name of route.surface.coalesceBy ?? []) if (req.headers[name] !== undefined) key += `\n${name}: ${String(req.headers[name])}`;
    const answer = await inflight.get(key, () => answerOnce(route, input, routeDeps));
    writeAnswer(res, answer, cacheControl, extra ? await extra(req) : undefined);
  }

  async function answerOnce(route: JsonRoute, input: RouteRequest<unknown, unknown>, routeDeps: unknown): Promise<Answer> {
    const result = await route.handle(input, routeDeps);
    let answer = serialized.get(result);
    if (!answer) serialized.set(result, (answer = serialize(result, route.surface)));
    return answer;
  }

  function refuseMethod(res: ServerResponse, method: string, url: URL, matches: RouteMatch<Mounted>[], surface: Surface | undefined): void {
    const methods = matches.flatMap((m) => (m.route.route.kind === "raw" ? (m.route.route.methods as string[]) : [m.route.route.method]));
    const allow = [...new Set([...methods, ...(surface?.allowExtra ?? [])])].join(", ");
    sendError(res, "method_not_allowed", `${method} is not allowed on ${url.pathname}`, { allow });
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, url: URL, matches: RouteMatch<Mounted>[]): Promise<void> {
    const method = req.method ?? "GET";
    const first = matches[0]!.route.route;
    const surface = first.surface;
    let chosen: RouteMatch<Mounted> | undefined;
    for (const m of matches) {
      const r = m.route.route;
      if (r.kind === "raw" ? r.methods === "*" || (r.methods as string[]).includes(method) : r.method === method) {
        chosen = m;
        break;
      }
    }
    if (!chosen && method === "OPTIONS" && surface?.preflight) {
      res.writeHead(204, surface.preflight);
      return void res.end();
    }
    if (!chosen && method === "HEAD" && surface?.head) chosen = matches.find((m) => m.route.route.kind !== "raw" && m.route.route.method === "GET");
    if (!chosen) return refuseMethod(res, method, url, matches, surface);
    const { route, deps: routeDeps } = chosen.route;
    if (route.kind === "raw") {
      if (route.before) await route.before(req, routeDeps);
      if ((await route.handle(req, res, url, routeDeps)) === false) await deps.fallback(req, res, url);
      return;
    }
    await runJson(req, res, url, route, chosen.params, routeDeps);
  }

  return async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      return sendError(res, "not_found", "unparsable request target");
    }
    const matches = table.match(url.pathname);
    const matched = matches[0]?.route.route;
    try {
      // Refusals before routing, on every path (refuse: GraphQL's in its error shape, the others in the error body).
      // Two Authorization headers: which one counts would depend on who reads them (auth/checkDuplicateAuthorization.ts).
      const duplicate = checkDuplicateAuthorization(req);
      if (duplicate) return refuse(res, matched, "duplicate_authorization", duplicate);
      // CSRF: a state-changing request carrying the passkey session cookie must come from our origin (auth/checkRequestOrigin.ts).
      const crossSite = checkRequestOrigin(req.method, req.headers, deps.origins);
      if (crossSite) return refuse(res, matched, "cross_site_request", crossSite);
      if (matches.length > 0) return await dispatch(req, res, url, matches);
      if (isApiPath(url.pathname)) return sendError(res, "not_found", `no route for ${req.method ?? "GET"} ${url.pathname}`);
      return await deps.fallback(req, res, url);
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      if (error instanceof ApiError) {
        const bearerRoute = matched && (matched.auth === "bearer" || matched.auth === "either");
        return sendApiError(res, error, error.code === "unauthorized" && bearerRoute ? { "www-authenticate": "Bearer" } : {});
      }
      deps.log.error({ err: error, path: url.pathname }, "unhandled request error");
      sendError(res, "internal_error", "internal error");
    }
  };
}
