import type { JsonRoute } from "../routes/Route.ts";
import { READ_SURFACE } from "../routes/surfaces.ts";
import type { Services } from "../services/createServices.ts";
import type { ZodType } from "zod";
import { ENTITY_EVENTS_QUERY, entityDetailHandler, entityEventsHandler, entityListHandler, entityOperations } from "./entityRoutes.ts";
import { getDashboard } from "./getDashboard.ts";
import { getEvent } from "./getEvent.ts";
import { getPreviousWindow } from "./getPreviousWindow.ts";
import { getProviderDetail } from "./getProviderDetail.ts";
import { getSeries, SERIES_QUERY } from "./getSeries.ts";
import { errorResponse, ok, ref } from "./openapi.ts";
import { AGGREGATE, DOCUMENT, EVENT, LIVE, SETTLED } from "./readCache.ts";
import { SEARCH_QUERY, search } from "./search.ts";
import type { RestHandler, RestResponse } from "./types.ts";
import { WINDOW_QUERY } from "./windowQuery.ts";

/** What the read handlers need: the services, and the OpenAPI document's answer (built once at mount). */
export interface ReadDeps {
  services: Services;
  openApi: RestResponse;
}

type ReadRoute = JsonRoute<ReadDeps>;

/**
 * A public GET of the read API (no credentials, open CORS, coalesced) with what it may be cached for (readCache.ts), and
 * the schema of its query if it reads one.
 */
const read = <Q>(
  path: string,
  cacheControl: NonNullable<ReadRoute["cacheControl"]>,
  handler: RestHandler<Q>,
  openapi: ReadRoute["openapi"],
  query?: ZodType<Q>,
): ReadRoute => ({
  method: "GET",
  path,
  auth: "none",
  ...(query ? { input: { query } } : {}),
  surface: READ_SURFACE,
  cacheControl,
  handle: ({ params, query }, { services }) => handler({ params, query, services }),
  openapi,
});

/** The head page moves with every new row; a page past it (`cursor`) holds older ids only. */
const eventPageCache = (url: URL) => (url.searchParams.has("cursor") ? SETTLED : LIVE);

const entity = (kind: "service" | "agent", plural: "services" | "agents"): ReadRoute[] => {
  const ops = entityOperations(kind, plural);
  return [
    read(`/api/${plural}`, LIVE, entityListHandler(kind), ops.list),
    read(`/api/${plural}/:id`, LIVE, entityDetailHandler(kind), ops.detail),
    read(`/api/${plural}/:id/events`, eventPageCache, entityEventsHandler(kind), ops.events, ENTITY_EVENTS_QUERY),
  ];
};

/**
 * The read API (docs/api.md): every route with its OpenAPI Operation. Invariant: a route's answer depends only on its
 * path and query (every route here is a public GET), which is what lets the router coalesce identical reads.
 */
export const READ_ROUTES: readonly ReadRoute[] = [
  read(
    "/api/dashboard",
    AGGREGATE,
    getDashboard,
    {
      operationId: "getDashboard",
      summary: "Aggregates of a window from the rollups, top 5 services/agents/providers, 20 newest rows",
      parameters: [{ name: "w", in: "query", required: false, schema: { type: "string", enum: ["24h", "7d", "30d", "all"], default: "24h" } }],
      responses: {
        "200": ok(ref("Dashboard"), "OK", {
          "Cache-Control": { schema: { type: "string", const: "public, s-maxage=300, stale-while-revalidate=600" } },
        }),
        "400": errorResponse("unknown window (invalid_window)"),
      },
    },
    WINDOW_QUERY,
  ),
  ...entity("service", "services"),
  ...entity("agent", "agents"),
  read("/api/events/:id", EVENT, getEvent, {
    operationId: "getEvent",
    summary: "One row with log_index and the other rows of the same transaction (related_events)",
    parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^[1-9][0-9]{0,18}$" } }],
    responses: {
      "200": ok(ref("EventDetail")),
      "400": errorResponse("not a positive integer below 2^63 (invalid_id)"),
      "404": errorResponse("no such row of the live methodology version (not_found)"),
    },
  }),
  read(
    "/api/search",
    LIVE,
    search,
    {
      operationId: "search",
      summary: "Events by tx hash or counterparty address; entities by id, label or wallet; labelled addresses",
      parameters: [{ name: "q", in: "query", required: true, schema: { type: "string", minLength: 2, maxLength: 200 } }],
      responses: {
        "200": ok(ref("SearchResult")),
        "400": errorResponse("q shorter than 2 or longer than 200 characters after trimming, or with control characters (invalid_query)"),
      },
    },
    SEARCH_QUERY,
  ),
  // The explorer's reads (docs/web.md).
  read(
    "/api/dashboard/previous",
    AGGREGATE,
    getPreviousWindow,
    {
      operationId: "getPreviousWindow",
      summary: "Headline figures of the window just before ?w= (same length, ending where it starts); previous is null for all",
      parameters: [{ name: "w", in: "query", required: false, schema: { type: "string", enum: ["24h", "7d", "30d", "all"], default: "24h" } }],
      responses: { "200": ok(ref("PreviousWindow")), "400": errorResponse("unknown window (invalid_window)") },
    },
    WINDOW_QUERY,
  ),
  read(
    "/api/series",
    AGGREGATE,
    getSeries,
    {
      operationId: "getSeries",
      summary: "Payments count and volume per hour or day over a window, from the rollups: the whole ledger, one entity (entity=) or one provider (provider=)",
      parameters: [
        { name: "w", in: "query", required: false, schema: { type: "string", enum: ["24h", "7d", "30d", "all"], default: "24h" } },
        {
          name: "bucket",
          in: "query",
          required: false,
          description: "default: hour for 24h and 7d, day beyond",
          schema: { type: "string", enum: ["hour", "day"] },
        },
        { name: "entity", in: "query", required: false, schema: { type: "string" } },
        { name: "provider", in: "query", required: false, description: "provider address or memo fingerprint", schema: { type: "string" } },
      ],
      responses: {
        "200": ok(ref("ActivitySeries")),
        "400": errorResponse("unknown window or bucket, hourly buckets with w=all (invalid_window); both entity and provider (invalid_query)"),
        "404": errorResponse("unknown entity (not_found)"),
      },
    },
    SERIES_QUERY,
  ),
  read("/api/providers/:key", LIVE, getProviderDetail, {
    operationId: "getProvider",
    summary: "One gateway provider by address or memo fingerprint, all time",
    parameters: [{ name: "key", in: "path", required: true, schema: { type: "string" } }],
    responses: { "200": ok(ref("Provider")), "404": errorResponse("unknown provider (not_found)") },
  }),
  {
    method: "GET",
    path: "/api/openapi.json",
    auth: "none",
    surface: READ_SURFACE,
    cacheControl: DOCUMENT,
    handle: async (_request, { openApi }) => openApi,
    openapi: { operationId: "getOpenApi", summary: "This document", responses: { "200": ok({ type: "object" }) } },
  },
];
