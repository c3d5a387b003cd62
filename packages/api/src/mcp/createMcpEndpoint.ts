import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createLedgerMcpServer } from "@agent-ledger/mcp";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { BodyError, parseJsonText, readBodyText } from "../http/readBody.ts";
import { sendApiError, sendError } from "../http/sendError.ts";
import { sendJson } from "../http/sendJson.ts";
import { checkMcpRequestSource, type McpRequestSources } from "./checkMcpRequestSource.ts";
import { createLoopbackRegistry, type LoopbackRegistry } from "./createLoopbackFetch.ts";
import { resolveMcpRequestSources } from "./resolveMcpRequestSources.ts";

export const MCP_PATH = "/mcp";
const MAX_BODY = 256 * 1024;

const PREFLIGHT = {
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id",
  "access-control-expose-headers": "mcp-session-id",
  "access-control-max-age": "86400",
};

export interface McpEndpoint extends LoopbackRegistry {
  /** `/mcp`: the MCP Streamable HTTP transport, stateless (docs/mcp.md). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** JSON-RPC 2.0's own errors for a body that is not a message (the SDK's ErrorCode; HTTP 400 as the transport answers them). */
function sendRpcError(res: ServerResponse, code: number, message: string): void {
  sendJson(res, 400, { jsonrpc: "2.0", id: null, error: { code, message } }, { "cache-control": "no-store" });
}

/**
 * MCP over Streamable HTTP at `/mcp`, **stateless** (no `Mcp-Session-Id`): every POST gets a fresh server with the
 * tools of @agent-ledger/mcp bound to that request's bearer token and client address, answers with JSON, and is
 * closed. The tools call this API over loopback (createLoopbackFetch.ts), so REST/GraphQL rules, rate limits and
 * error codes apply unchanged. GET (a server-initiated stream) and DELETE (end a session) do not exist without
 * sessions: 405. First of all, `Host` and `Origin` are checked against DNS rebinding (checkMcpRequestSource.ts: 403
 * `cross_site_request`). HTTP-level misuse gets the API's JSON error body; a body that is not JSON (-32700) or not a
 * JSON-RPC message (-32600) gets JSON-RPC's own error, as do errors inside a message (the SDK's, params: -32602).
 */
export function createMcpEndpoint(deps: {
  log: Logger;
  server: () => Server;
  /** Allowed origins and host names; default: from PUBLIC_BASE_URL, WEBAUTHN_ORIGIN, MCP_ALLOWED_ORIGINS, MCP_ALLOWED_HOSTS (resolveMcpRequestSources.ts). */
  sources?: McpRequestSources;
}): McpEndpoint {
  const loopback = createLoopbackRegistry(deps.server);
  const sources = deps.sources ?? resolveMcpRequestSources(process.env);
  return {
    ...loopback,
    async handle(req, res) {
      const method = req.method ?? "GET";
      const refused = checkMcpRequestSource(req.headers, sources);
      if (refused) return sendError(res, "cross_site_request", refused, { vary: "Origin" });
      // An allowed browser page (or no Origin: any other client) may read the answer.
      res.setHeader("access-control-allow-origin", typeof req.headers.origin === "string" ? req.headers.origin : "*");
      res.setHeader("vary", "Origin");
      if (method === "OPTIONS") {
        res.writeHead(204, PREFLIGHT);
        return void res.end();
      }
      if (method !== "POST") {
        return sendError(
          res,
          "method_not_allowed",
          `${method} is not allowed on ${MCP_PATH}: send MCP messages as POST (stateless Streamable HTTP, no server-initiated stream)`,
          { allow: "POST, OPTIONS" },
        );
      }
      const accept = String(req.headers.accept ?? "");
      // As the transport requires (a browser's or curl's `*/*` is not an MCP client): both types, named.
      if (!/application\/json/i.test(accept) || !/text\/event-stream/i.test(accept)) {
        return sendError(res, "not_acceptable", "an MCP client must accept both application/json and text/event-stream (Streamable HTTP, docs/mcp.md)");
      }
      if (!/^application\/json\b/i.test(String(req.headers["content-type"] ?? ""))) {
        return sendError(res, "unsupported_media_type", "send MCP messages as application/json");
      }
      let text: string;
      try {
        text = await readBodyText(req, MAX_BODY); // 413 payload_too_large
      } catch (error) {
        if (error instanceof BodyError) return sendApiError(res, error);
        return sendError(res, "invalid_body", "the body could not be read");
      }
      let body: unknown;
      try {
        body = parseJsonText(text); // not JSON, or nested more than 64 levels
      } catch (error) {
        return sendRpcError(res, ErrorCode.ParseError, `Parse error: ${error instanceof BodyError ? error.message : "the body is not JSON"}`);
      }
      // The SDK's own schema decides what a message is, so this and the transport cannot disagree.
      const messages = Array.isArray(body) ? body : [body];
      if (messages.length === 0 || !messages.every((m) => JSONRPCMessageSchema.safeParse(m).success)) {
        return sendRpcError(res, ErrorCode.InvalidRequest, "Invalid Request: the body must be a JSON-RPC 2.0 message (or a non-empty batch of them)");
      }

      const authorization = req.headers.authorization;
      const bearer = typeof authorization === "string" && /^Bearer\s+\S+$/i.test(authorization.trim()) ? authorization.trim().split(/\s+/)[1]! : null;
      const server = createLedgerMcpServer({
        api: {
          baseUrl: "http://api.internal", // only the path matters: the loopback fetch always reaches this server
          fetch: loopback.fetchFor({
            remoteAddress: req.socket.remoteAddress,
            forwardedFor: req.headers["x-forwarded-for"],
            requestId: typeof res.getHeader("x-request-id") === "string" ? (res.getHeader("x-request-id") as string) : undefined,
          }),
          bearer,
          headers: { "user-agent": "agent-ledger-mcp (http)" },
        },
        authHint: "send `Authorization: Bearer <access token>` of a session paired with `agent-ledger pair` (docs/mcp.md)",
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        // Malformed (non-bearer) Authorization headers reach the tools as no bearer: the wallet tools then answer 401.
        await transport.handleRequest(req, res, body);
      } catch (error) {
        deps.log.error({ err: error }, "mcp request failed");
        if (!res.headersSent) sendError(res, "internal_error", "internal error");
      }
    },
  };
}
