import { PassThrough } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { answerMalformedMessages } from "./answerMalformedMessages.ts";
import { createLedgerMcpServer } from "./createLedgerMcpServer.ts";

// The SDK's real stdio transport over in-process streams, serving the real server (only `ping` is asked: nothing
// listens on the API address).
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

async function serve(): Promise<{ send(line: string): void; next(): Promise<unknown>; errors: Error[] }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioServerTransport(stdin, stdout);
  const errors: Error[] = [];
  answerMalformedMessages(transport);
  const server = createLedgerMcpServer({ api: { baseUrl: "http://127.0.0.1:9", timeoutMs: 1_000 }, authHint: "pair first" });
  server.server.onerror = (error) => errors.push(error);
  await server.connect(transport);
  closers.push(() => server.close());
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let buffer = "";
  stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  return {
    send: (line) => stdin.write(`${line}\n`),
    next: () => {
      const line = lines.shift();
      return line !== undefined ? Promise.resolve(JSON.parse(line)) : new Promise((resolve) => waiters.push((l) => resolve(JSON.parse(l))));
    },
    errors,
  };
}

describe("answerMalformedMessages (stdio)", () => {
  it("answers a line that is not JSON -32700 and one that is not a JSON-RPC message -32600, id null, and goes on serving", async () => {
    const io = await serve();
    io.send("{");
    expect(await io.next()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the line is not JSON" } });
    for (const line of [JSON.stringify({ jsonrpc: "1.0", id: 2, method: "ping" }), "[1]", "42", "{}"]) {
      io.send(line);
      expect(await io.next(), line).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    }
    io.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }));
    expect(await io.next()).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    expect(io.errors).toHaveLength(5); // still reported to the server's own onerror as before
  });
});
