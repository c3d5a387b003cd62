import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

/** A schema error's issues in one short line: where and what, never the schema dump. */
function describeIssues(issues: readonly { path?: readonly PropertyKey[]; message?: string }[]): string {
  return issues
    .slice(0, 3)
    .map((i) => `${i.path?.length ? i.path.map(String).join(".") : "params"}: ${i.message ?? "invalid"}`)
    .join("; ");
}

/**
 * Makes every request handler of `server` answer a request whose params do not fit the method's schema with JSON-RPC
 * -32602 (invalid params) and a one-line message, as the MCP and JSON-RPC specs say: the SDK parses params inside the
 * handler and lets its schema error through as -32603 (internal error) with the whole validation dump. Call it once the
 * tools and resources are registered (it wraps the handlers the SDK installed then) and before connecting.
 */
export function answerInvalidParams(server: Server): void {
  // The SDK keeps its handlers in a private map; this is the one place that reaches into it.
  const handlers = (server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
  for (const [method, handler] of handlers) {
    handlers.set(method, async (request, extra) => {
      try {
        return await handler(request, extra);
      } catch (error) {
        const issues = (error as { issues?: unknown }).issues;
        if (!(error instanceof McpError) && Array.isArray(issues)) {
          // A plain error with a code: the SDK sends its code and message as they are (McpError would prefix "MCP error -32602:").
          throw Object.assign(new Error(`invalid params of ${method}: ${describeIssues(issues)}`), { code: ErrorCode.InvalidParams });
        }
        throw error;
      }
    });
  }
}
