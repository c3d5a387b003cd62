import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * Makes a line-based transport (stdio) answer input that is not a message as JSON-RPC 2.0 says, with `id` null (it
 * cannot be known): a line that is not JSON -32700, one that is not a JSON-RPC message -32600. The SDK's stdio
 * transport only reports such a line to `onerror` and drops it, so a client would wait for an answer that never comes.
 * Call it before connecting: the SDK's Protocol keeps an `onerror` set before `connect` and calls it first.
 */
export function answerMalformedMessages(transport: Transport): void {
  const previous = transport.onerror;
  transport.onerror = (error) => {
    const answer =
      error instanceof SyntaxError
        ? { code: ErrorCode.ParseError, message: "Parse error: the line is not JSON" }
        : error.name === "ZodError"
          ? { code: ErrorCode.InvalidRequest, message: "Invalid Request: the line is not a JSON-RPC 2.0 message" }
          : null;
    // The SDK's message types have no null id; JSON-RPC requires it here.
    if (answer) transport.send({ jsonrpc: "2.0", id: null, error: answer } as unknown as JSONRPCMessage).catch(() => {});
    previous?.(error);
  };
}
