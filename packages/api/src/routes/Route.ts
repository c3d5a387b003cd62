import type { IncomingMessage, ServerResponse } from "node:http";
import type { ZodType } from "zod";
import type { Principal } from "../auth/authenticate.ts";

/** HTTP methods a route may declare. */
export type Method = "GET" | "POST" | "DELETE" | "PUT" | "PATCH";

/**
 * Who may call a route: `none`; `bearer` (Authorization: Bearer, a paired wallet session); `cookie` (the passkey
 * session, al_session); `either` (a bearer header if sent, else the cookie). The router authenticates before the
 * handler runs (auth/authenticateRequest.ts) and hands the handler the principal with its loaded session.
 */
export type Auth = "none" | "bearer" | "cookie" | "either";

/** An OpenAPI 3.1 Operation Object, declared beside the handler. */
export type Operation = Record<string, unknown> & { operationId: string; summary: string; responses: Record<string, unknown> };

/**
 * A route's entry in the generated OpenAPI document: its Operation(s), or an explicit reason why it is not part of
 * the public REST document (pages, GraphQL). Every route declares one or the other (test/routes.table.test.ts).
 */
export type OpenApiEntry = Operation | { omit: string };

/** What a JSON handler answers: body, status (default 200), extra headers (Set-Cookie may repeat). One result type for every surface. */
export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string | string[]>;
}

/** What a JSON handler gets: the request, the decoded path parameters, the query, the principal and the parsed input. */
export interface RouteRequest<Body = unknown, Query = URLSearchParams> {
  req: IncomingMessage;
  url: URL;
  /** Path parameters, decoded (`:id`); a malformed escape is kept verbatim. */
  params: Record<string, string>;
  /** The query string, or what `input.query` parsed it into. */
  query: Query;
  /** The caller (null for `auth: "none"` and for an optional route called without credentials). */
  principal: Principal | null;
  /** What `input.body` parsed the JSON body into (an empty body reads as `{}`), else undefined. */
  body: Body;
}

/**
 * How a family of routes answers beyond its handlers (one per surface: read API, wallet, webhooks, ops): the CORS
 * preflight answer (none = OPTIONS is a 405), whether HEAD is served by the GET handler, what a 405 lists beyond the
 * declared methods, the default Cache-Control, and whether identical reads in flight share one answer.
 */
export interface Surface {
  name: string;
  preflight?: Record<string, string>;
  head: boolean;
  allowExtra: readonly string[];
  cacheControl: string;
  /** Answers carry `Access-Control-Allow-Origin: *` (not the wallet's cookie surface). */
  cors: boolean;
  /** Identical requests (path + query) in flight share one answer (public GET reads only). */
  coalesce?: boolean;
  /** Request headers that select a different answer (read routing's minimum block): part of the coalescing key. */
  coalesceBy?: readonly string[];
}

/**
 * Input declared by a route, checked by the router before the handler runs (routes/parseRouteInput.ts): a schema of the
 * query (its first value per name) and/or of the JSON body. A failed check answers the code an issue states
 * (`params.code`, routes/parsedBy.ts wraps the API's parsers) or else 400 `invalid_query` / `invalid_body`, with the
 * issue's message. The handler gets what the schemas parsed. A handler that must act before it reads its input (a
 * challenge consumed or a per-user limit counted first) leaves the schemas out and says why in `own`; every route
 * whose Operation documents query parameters or a body declares one or the other (test/routes.table.test.ts).
 */
export interface RouteInput {
  query?: ZodType;
  body?: ZodType;
  own?: string;
}

/**
 * A route answering JSON through the router (errors, HEAD, CORS, caching headers handled once). Declarations are
 * static (a surface exports its list); `D` is what the surface's handlers need, bound once when buildApp mounts them.
 */
export interface JsonRoute<D = any> {
  kind?: "json";
  method: Method;
  /** Path template; `:name` matches one non-empty segment. */
  path: string;
  /** Only this very path, not with a trailing slash (the routes outside /api kept their exact paths). */
  exact?: boolean;
  auth: Auth;
  /** Without credentials the handler runs with a null principal (webhook verify). */
  authOptional?: boolean;
  /** A bearer session that is revoked or expired still authenticates (the wallet's own session reads show its state). */
  allowInactive?: boolean;
  /** The handler loads the credential itself (POST /api/wallet/pay: its signer cache spares the session query). */
  authInHandler?: boolean;
  /** Runs after method matching, before authentication (per-address rate limits). */
  before?: (req: IncomingMessage, deps: D) => Promise<void>;
  input?: RouteInput;
  surface: Surface;
  /**
   * `Cache-Control` of its answers, overriding the surface's: a value, or one chosen from the request URL (a cursor
   * page past the head). Every 200 whose policy is not `no-store` carries an ETag and answers `If-None-Match` with 304
   * (routes/writeAnswer.ts). Every public read declares one, with its reason in docs/api.md, Caching (test/rest.caching.test.ts).
   */
  cacheControl?: string | ((url: URL) => string);
  handle(request: RouteRequest<any, any>, deps: D): Promise<RouteResult>;
  openapi: OpenApiEntry;
}

/**
 * A route that writes its own response (SSE, GraphQL, MCP, the relay, pages): `methods` it answers ("*" = every
 * method, the handler refuses the others itself). Returning false hands the request on to the app's fallback (pages).
 * `openapi` is keyed by lower-case method.
 */
export interface RawRoute<D = any> {
  kind: "raw";
  methods: readonly (Method | "HEAD")[] | "*";
  /** Path template; `:name` matches one non-empty segment, a trailing `/*` any path below it. */
  path: string;
  exact?: boolean;
  auth: Auth;
  /** The surface its 405s and preflights follow when `methods` is a list. */
  surface?: Surface;
  before?: (req: IncomingMessage, deps: D) => Promise<void>;
  /** Refusals before routing (duplicate Authorization, cross-site) in GraphQL's error shape instead of the error body. */
  graphqlErrors?: boolean;
  handle(req: IncomingMessage, res: ServerResponse, url: URL, deps: D): Promise<void | boolean>;
  openapi: Record<string, Operation> | { omit: string };
}

export type AnyRoute<D = any> = JsonRoute<D> | RawRoute<D>;
