import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { createLedgerMcpServer } from "./createLedgerMcpServer.ts";

// Tool arguments the SDK refuses before any tool runs (nothing listens on the API address: no call may reach it).
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

async function connect(): Promise<Client> {
  const server = createLedgerMcpServer({ api: { baseUrl: "http://127.0.0.1:9", timeoutMs: 1_000 }, authHint: "pair first" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "invalid-arguments-test", version: "1.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}

describe("tool arguments that do not fit the tool's schema", () => {
  it("are a tool error in the tools' own shape: bad_request with its status 400, the SDK's message without its prefix", async () => {
    const client = await connect();
    for (const [name, args] of [
      ["search", { q: 42 }],
      ["get_event", { id: null }],
      ["pay", { to: "0x1234", amount: "1" }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      const { error } = JSON.parse((result.content as { text: string }[])[0]!.text);
      expect(error, name).toMatchObject({ code: "bad_request", status: 400 });
      expect(error.message, name).toMatch(new RegExp(`^Input validation error: Invalid arguments for tool ${name}: `));
    }
  });
});
