import type { IncomingMessage, ServerResponse } from "node:http";
import type { Feed } from "../feed/createFeed.ts";
import { GRAPHQL_STREAM_PATH } from "../feed/createGraphqlStreamHandler.ts";
import { MCP_PATH } from "../mcp/createMcpEndpoint.ts";
import { errors, jsonBody, NONE, obj, ok, query, str, uint256 } from "./openapiParts.ts";
import type { AnyRoute } from "./Route.ts";
import { OPS_SURFACE } from "./surfaces.ts";

type Handle = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void | boolean>;

/** What the app's own routes need: the handlers buildApp builds (each in its folder). */
export interface AppRouteDeps {
  mcp: { handle(req: IncomingMessage, res: ServerResponse): Promise<void> };
  feed: Pick<Feed, "handleSse" | "handleGraphqlStream">;
  /** yoga's /graphql handler (graphql/createGraphqlHandler.ts). */
  graphql: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;
  /** GraphiQL: a browser's GET of /graphql without a query (packages/web). */
  graphiql: Handle;
  /** The passkey approval page (packages/web): false when the request is not its. */
  approvalPage: Handle;
  ops: { readyz(req: IncomingMessage, res: ServerResponse): Promise<void>; metricsEndpoint(req: IncomingMessage, res: ServerResponse): Promise<void> };
}

const GRAPHQL_PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, accept, authorization, x-ledger-min-block",
  "access-control-max-age": "86400",
};

/**
 * The routes beyond the JSON surfaces: MCP, the live feed, GraphQL (and its SSE stream), the approval page and the
 * operations endpoints. Streaming and protocol handlers write their own responses (`kind: "raw"`); those not in the
 * public REST document say why.
 */
export const APP_ROUTES: readonly AnyRoute<AppRouteDeps>[] = [
  {
    kind: "raw",
    methods: "*",
    path: MCP_PATH,
    exact: true,
    auth: "either",
    handle: (req, res, _url, { mcp }) => mcp.handle(req, res),
    openapi: {
      post: {
        operationId: "mcp",
        tags: ["mcp"],
        security: [{ bearer: [] }, {}],
        summary: "Model Context Protocol over Streamable HTTP (stateless, JSON answers; docs/mcp.md): ledger, wallet and webhook tools acting as the caller",
        requestBody: jsonBody({ type: "object", description: "a JSON-RPC 2.0 message of MCP" }),
        responses: {
          "200": ok({ type: "object", description: "the JSON-RPC answer" }),
          "202": { description: "Accepted: the body held only notifications or responses (no answer body)" },
          ...errors(["invalid_body", "method_not_allowed", "not_acceptable", "unsupported_media_type", "payload_too_large"]),
          // A body that is not a message: JSON-RPC's own error, as the MCP transport answers it (docs/mcp.md).
          "400": {
            description:
              "invalid_body (the body could not be read), or JSON-RPC's own error with id null: -32700 parse error (not JSON, nested more than 64 levels), -32600 invalid request (not a JSON-RPC 2.0 message)",
            // One schema for both shapes: the API's error body, or JSON-RPC's error (jsonrpc "2.0", id null, a numeric code).
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["error"],
                  properties: {
                    jsonrpc: { type: "string", const: "2.0" },
                    id: { type: "null" },
                    error: {
                      type: "object",
                      required: ["code", "message"],
                      properties: { code: { enum: ["invalid_body", "duplicate_authorization", -32700, -32600] }, message: str },
                    },
                  },
                },
              },
            },
          },
          ...errors(["cross_site_request"], {
            403: "cross_site_request: a foreign Origin or a Host that is not a name of this API (DNS rebinding protection, docs/mcp.md)",
          }),
        },
      },
    },
  },
  {
    kind: "raw",
    methods: "*",
    path: "/api/feed",
    auth: "none",
    handle: (req, res, url, { feed }) => feed.handleSse(req, res, url),
    openapi: {
      get: {
        operationId: "feed",
        tags: ["feed"],
        security: NONE,
        summary: "Live feed of new rows as server-sent events (id = row id; resume with Last-Event-ID); needs NEXT_PUBLIC_LIVE_FEED=1",
        parameters: [
          query("agent_id", str, "only this entity's rows"),
          query("min_amount_wei", uint256, "only rows of at least this amount"),
          query("last_event_id", { type: "string", pattern: "^(0|[1-9][0-9]*)$" }, "resume after this row id (the Last-Event-ID header wins)"),
          { name: "Last-Event-ID", in: "header", required: false, schema: { type: "string" } },
        ],
        responses: {
          "200": { description: "text/event-stream: `event: ledger` frames whose data is an EventRow", content: { "text/event-stream": { schema: str } } },
          ...errors(["invalid_amount", "invalid_last_event_id", "not_found", "feed_disabled", "method_not_allowed", "feed_unavailable"]),
        },
      },
    },
  },
  {
    kind: "raw",
    methods: "*",
    path: GRAPHQL_STREAM_PATH,
    exact: true,
    auth: "either",
    graphqlErrors: true,
    handle: (req, res, _url, { feed }) => feed.handleGraphqlStream(req, res),
    openapi: { omit: "GraphQL subscriptions over SSE: described by the GraphQL schema (docs/api.md § Live feed)" },
  },
  {
    kind: "raw",
    methods: "*",
    path: "/graphql",
    exact: true,
    auth: "either",
    graphqlErrors: true,
    async handle(req, res, url, { graphql, graphiql }) {
      if (await graphiql(req, res, url)) return; // GraphiQL: a browser's GET without a query
      if (req.method === "OPTIONS") {
        res.writeHead(204, GRAPHQL_PREFLIGHT_HEADERS);
        return void res.end();
      }
      res.setHeader("access-control-allow-origin", "*"); // merged into the headers yoga writes
      await graphql(req, res);
    },
    openapi: { omit: "GraphQL: described by its schema (GET /graphql serves GraphiQL; docs/api.md)" },
  },
  {
    kind: "raw",
    methods: "*",
    path: "/approve",
    exact: true,
    auth: "none",
    handle: (req, res, url, { approvalPage }) => approvalPage(req, res, url),
    openapi: { omit: "a page (the passkey approval page, docs/web.md)" },
  },
  {
    kind: "raw",
    methods: "*",
    path: "/approve/*",
    auth: "none",
    handle: (req, res, url, { approvalPage }) => approvalPage(req, res, url),
    openapi: { omit: "a page (the passkey approval page and its script, docs/web.md)" },
  },
  {
    method: "GET",
    path: "/healthz",
    exact: true,
    auth: "none",
    surface: OPS_SURFACE,
    handle: async () => ({ body: { ok: true } }),
    openapi: {
      operationId: "healthz",
      tags: ["ops"],
      security: NONE,
      summary: "Liveness: the process answers",
      responses: { "200": ok(obj({ ok: { type: "boolean", const: true } })), ...errors(["method_not_allowed"]) },
    },
  },
  {
    kind: "raw",
    methods: ["GET", "HEAD"],
    path: "/readyz",
    exact: true,
    auth: "none",
    surface: OPS_SURFACE,
    handle: (req, res, _url, { ops }) => ops.readyz(req, res),
    openapi: {
      get: {
        operationId: "readyz",
        tags: ["ops"],
        security: NONE,
        summary: "Readiness: database, Redis, indexer lag and checkpoint age within their limits (docs/api.md § Operations); 503 lists what failed",
        responses: {
          "200": ok({ type: "object", required: ["ok"], properties: { ok: { type: "boolean", const: true } } }),
          "503": ok({ type: "object", required: ["ok"], properties: { ok: { type: "boolean", const: false } } }, "Not ready (same shape, ok false)"),
          ...errors(["method_not_allowed"]),
        },
      },
    },
  },
  {
    kind: "raw",
    methods: ["GET", "HEAD"],
    path: "/metrics",
    exact: true,
    auth: "none",
    surface: OPS_SURFACE,
    handle: (req, res, _url, { ops }) => ops.metricsEndpoint(req, res),
    openapi: {
      get: {
        operationId: "metrics",
        tags: ["ops"],
        security: NONE,
        summary: "Prometheus text exposition (every name starts with agent_ledger_; docs/operations.md). Block it at the edge of a public deployment",
        responses: { "200": { description: "text/plain; version=0.0.4", content: { "text/plain": { schema: str } } }, ...errors(["method_not_allowed"]) },
      },
    },
  },
];
