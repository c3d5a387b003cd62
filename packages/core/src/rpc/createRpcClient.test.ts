import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRpcClient, RpcError } from "./createRpcClient.ts";

// A loopback JSON-RPC node: echoes `method` as the result, answers `fail` with a JSON-RPC error, never answers `hang`,
// and answers `big` with a content-length above the client's cap.
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const calls = JSON.parse(body) as { id: number; method: string } | { id: number; method: string }[];
      const answer = (c: { id: number; method: string }) =>
        c.method === "fail" ? { jsonrpc: "2.0", id: c.id, error: { code: -32000, message: "nope" } } : { jsonrpc: "2.0", id: c.id, result: c.method };
      const first = Array.isArray(calls) ? calls[0]! : calls;
      if (first.method === "hang") return;
      const out = JSON.stringify(Array.isArray(calls) ? calls.map(answer).reverse() : answer(calls));
      if (first.method === "big") res.writeHead(200, { "content-type": "application/json", "content-length": String(2_000) });
      res.end(first.method === "big" ? out.padEnd(2_000) : out);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("createRpcClient", () => {
  it("returns a result, and a JSON-RPC error as RpcError with its code", async () => {
    const rpc = createRpcClient(url);
    expect(await rpc.request("eth_chainId", [])).toBe("eth_chainId");
    const error = await rpc.request("fail", []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ method: "fail", code: -32000, message: "fail: nope" });
  });

  it("answers a batch in call order whatever order the node answers in", async () => {
    expect(await createRpcClient(url).batch([{ method: "a", params: [] }, { method: "b", params: [] }, { method: "c", params: [] }])).toEqual(["a", "b", "c"]);
  });

  it("times out with the abort as the cause, and refuses an answer above the size cap with code -32005", async () => {
    const error = (await createRpcClient(url, { timeoutMs: 100 }).request("hang", []).catch((e: unknown) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect((error.cause as Error).name).toBe("TimeoutError");
    await expect(createRpcClient(url, { maxResponseBytes: 1_000 }).request("big", [])).rejects.toMatchObject({ code: -32005 });
  });
});
