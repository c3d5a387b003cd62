import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createLedgerMcpServer } from "./createLedgerMcpServer.ts";

// resources/read of a URI the server can tell is wrong without asking the API (nothing listens on the API address here:
// none of these reads may reach it). The reads that do reach the API are in packages/api/test/mcp.test.ts.
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

async function connect(): Promise<Client> {
  const server = createLedgerMcpServer({ api: { baseUrl: "http://127.0.0.1:9", timeoutMs: 1_000 }, authHint: "pair first" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "resources-test", version: "1.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}

const readError = (client: Client, uri: string) =>
  client.readResource({ uri }).then(
    () => null,
    (error: unknown) => error as { code: number; message: string; data?: unknown },
  );

describe("resources/read refusals", () => {
  it("a uri that is not a URI is invalid params (-32602), not an internal error", async () => {
    const error = await readError(await connect(), "not a uri");
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, data: { uri: "not a uri" } });
    expect(error!.message).toMatch(/not a URI/);
  });

  it("a template id with a broken percent-escape is invalid params (-32602), not an internal error", async () => {
    const uri = "agent-ledger://entities/%E0%A4%A";
    expect(await readError(await connect(), uri)).toMatchObject({ code: ErrorCode.InvalidParams, data: { uri } });
  });

  it("a URI that names no resource is MCP's resource not found (-32002), as an API not_found is", async () => {
    const client = await connect();
    for (const uri of ["agent-ledger://nothing", "agent-ledger://entities/a/b", "https://example.com/registry"]) {
      const error = await readError(client, uri);
      expect(error, uri).toMatchObject({ code: -32002, data: { uri } });
      expect(error!.message, uri).toMatch(/no resource/);
    }
  });
});
