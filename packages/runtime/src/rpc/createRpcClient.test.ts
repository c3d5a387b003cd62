import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRpcClient, RpcError } from "./createRpcClient.ts";

// A loopback JSON-RPC node: echoes `method` as the result, answers `fail` with a JSON-RPC error, never answers `hang`,
// answers `big` with a content-length above the client's cap, `http502` with HTTP 502, `garbage` with a body that is
// not JSON, `object` (in a batch) with a single object, `drop` by destroying the connection.
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
      if (first.method === "drop") return void req.socket.destroy();
      if (first.method === "http502") return void res.writeHead(502).end("bad gateway");
      if (first.method === "garbage") return void res.end("<html>");
      if (first.method === "object") return void res.end(JSON.stringify(answer(first)));
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
    expect(
      await createRpcClient(url).batch([
        { method: "a", params: [] },
        { method: "b", params: [] },
        { method: "c", params: [] },
      ]),
    ).toEqual(["a", "b", "c"]);
  });

  it("times out with the abort as the cause, and refuses an answer above the size cap with code -32005", async () => {
    const error = (await createRpcClient(url, { timeoutMs: 100 })
      .request("hang", [])
      .catch((e: unknown) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect((error.cause as Error).name).toBe("TimeoutError");
    await expect(createRpcClient(url, { maxResponseBytes: 1_000 }).request("big", [])).rejects.toMatchObject({ code: -32005 });
  });

  it("tells failures apart by kind: a JSON-RPC error object, an HTTP status, no answer, an answer that is not JSON-RPC", async () => {
    const kindOf = async (method: string, timeoutMs = 1_000) => {
      const e = (await createRpcClient(url, { timeoutMs })
        .request(method, [])
        .catch((x: unknown) => x)) as RpcError;
      expect(e).toBeInstanceOf(RpcError);
      return { kind: e.kind, code: e.code, status: e.status, reason: e.reason };
    };
    expect(await kindOf("fail")).toEqual({ kind: "error", code: -32000, status: undefined, reason: "nope" });
    expect(await kindOf("http502")).toEqual({ kind: "http", code: undefined, status: 502, reason: "HTTP 502" });
    expect(await kindOf("hang", 100)).toMatchObject({ kind: "transport", code: undefined });
    expect(await kindOf("drop")).toMatchObject({ kind: "transport" });
    expect(await kindOf("garbage")).toMatchObject({ kind: "response", reason: expect.stringMatching(/^invalid JSON response/) });
    const refused = (await createRpcClient("http://127.0.0.1:9/")
      .request("eth_chainId", [])
      .catch((x: unknown) => x)) as RpcError;
    expect(refused.kind).toBe("transport");
  });

  it("batchSettled answers each call's result or JSON-RPC error in call order; only a malformed answer throws", async () => {
    const rpc = createRpcClient(url);
    expect(await rpc.batchSettled([{ method: "a" }, { method: "fail" }, { method: "c", params: [1] }])).toEqual([
      { result: "a" },
      { error: { code: -32000, message: "nope" } },
      { result: "c" },
    ]);
    expect(await rpc.batchSettled([])).toEqual([]);
    await expect(rpc.batchSettled([{ method: "object" }])).rejects.toMatchObject({
      kind: "response",
      reason: expect.stringMatching(/^batch response is not an array/),
    });
    await expect(
      rpc.batch([
        { method: "a", params: [] },
        { method: "fail", params: [] },
      ]),
    ).rejects.toMatchObject({ method: "fail", code: -32000, kind: "error" });
  });
});
