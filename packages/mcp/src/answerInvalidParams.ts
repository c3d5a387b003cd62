import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { fail } from "./toolResult.ts";

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

/** A schema error's issues in one short line: where and what, never the schema dump. */
function describeIssues(issues: readonly { path?: readonly PropertyKey[]; message?: string }[]): string {
  return issues
    .slice(0, 3)
    .map((i) => `${i.path?.length ? i.path.map(String).join(".") : "params"}: ${i.message ?? "invalid"}`)
    .join("; ");
}

const SDK_INPUT_ERROR = "MCP error -32602: Input validation error: ";

/**
 * The SDK answers tool arguments that do not fit the tool's input schema with a tool error whose text is its McpError
 * message; as every other tool error, it becomes `{ "error": { code: "bad_request", message, status: 400 } }`.
 */
function structureInputError(result: unknown): unknown {
  const r = result as CallToolResult;
  const text = r?.isError && r.content?.length === 1 && r.content[0]!.type === "text" ? r.content[0]!.text : null;
  return text?.startsWith(SDK_INPUT_ERROR) ? fail("bad_request", text.slice("MCP error -32602: ".length)) : result;
}

/** MCP's "resource not found" (the spec's -32002); not in the SDK's ErrorCode enum. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * Makes every request handler of `server` answer a request whose params do not fit the method's schema with JSON-RPC
 * -32602 (invalid params) and a one-line message, as the MCP and JSON-RPC specs say: the SDK parses params inside the
 * handler and lets its schema error through as -32603 (internal error) with the whole validation dump. For
 * resources/read also: a `uri` that is not a URI is -32602 (the SDK's `new URL` would throw -32603), and a URI that
 * names no resource is -32002 with `data.uri` (the SDK answers -32602), as the MCP spec says. For tools/call: arguments
 * that do not fit the tool's schema stay a tool error (the SDK's choice, the 2025-11-25 spec's), in the tools' own
 * error shape with a code and status. Call it once the tools and resources are registered (it wraps the handlers the
 * SDK installed then) and before connecting.
 */
export function answerInvalidParams(server: Server): void {
  // The SDK keeps its handlers in a private map; this is the one place that reaches into it.
  const handlers = (server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  for (const [method, handler] of handlers) {
    handlers.set(method, async (request, extra) => {
      const uri = method === "resources/read" ? (request as { params?: { uri?: unknown } }).params?.uri : undefined;
      if (typeof uri === "string" && !URL.canParse(uri)) {
        throw Object.assign(new Error(`invalid params of ${method}: params.uri: not a URI`), { code: ErrorCode.InvalidParams, data: { uri } });
      }
      try {
        const result = await handler(request, extra);
        return method === "tools/call" ? structureInputError(result) : result;
      } catch (error) {
        const issues = (error as { issues?: unknown }).issues;
        if (!(error instanceof McpError) && Array.isArray(issues)) {
          // A plain error with a code: the SDK sends its code and message as they are (McpError would prefix "MCP error -32602:").
          throw Object.assign(new Error(`invalid params of ${method}: ${describeIssues(issues)}`), { code: ErrorCode.InvalidParams });
        }
        // The SDK's own McpError -32602 of resources/read: no resource or template matches the URI (our reads throw plain errors).
        if (typeof uri === "string" && error instanceof McpError && error.code === ErrorCode.InvalidParams) {
          throw Object.assign(new Error(`no resource ${uri} (see resources/list and resources/templates/list)`), { code: RESOURCE_NOT_FOUND, data: { uri } });
        }
        throw error;
      }
    });
  }
}
