import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRpcClient, RpcError } from "./createRpcClient.ts";

// Rules createRpcClient.test.ts leaves open: what goes on the wire (ids, version, params, content type), the default
// size cap, the cap's boundary, 413, answers without a body, a connection dropped mid-body, a batch answer missing a
// call, a JSON-RPC error without a message, and RpcError's own defaults.
// The loopback node records every request; the first call's method picks the answer:
// `echo` — the method as result; `nomessage` — a JSON-RPC error without a message; `long` — a result of 600 characters;
// `http413` — HTTP 413; `http304` — a 304 (no body); `big304` — a 304 claiming a large body; `halfbody` — a partial
// body, then the connection is destroyed; `missing` — a batch answer without the last call; `bigobject` — a single
// object with a long result in answer to a batch.
let server: Server;
let url: string;
const seen: { headers: IncomingHttpHeaders; body: unknown }[] = [];

type Call = { jsonrpc: string; id: number; method: string; params: unknown[] };
beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      const body = JSON.parse(text) as Call | Call[];
      seen.push({ headers: req.headers, body });
      const calls = Array.isArray(body) ? body : [body];
      const first = calls[0]!;
      const answer = (c: Call) =>
        c.method === "nomessage"
          ? { jsonrpc: "2.0", id: c.id, error: { code: -32601 } }
          : { jsonrpc: "2.0", id: c.id, result: c.method === "long" ? "x".repeat(600) : c.method };
      if (first.method === "http413") return void res.writeHead(413).end("too large");
      if (first.method === "http304") return void res.writeHead(304).end();
      if (first.method === "big304") return void res.writeHead(304, { "content-length": "5000" }).end();
      if (first.method === "halfbody") {
        res.writeHead(200, { "content-type": "application/json", "content-length": "400" });
        res.write('{"jsonrpc":"2.0","id":1,"result":"');
        return void setTimeout(() => req.socket.destroy(), 20);
      }
      if (first.method === "missing") return void res.end(JSON.stringify(calls.slice(0, -1).map(answer)));
      if (first.method === "bigobject") return void res.end(JSON.stringify(answer({ ...first, method: "long" })));
      res.end(JSON.stringify(Array.isArray(body) ? calls.map(answer) : answer(first)));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable("should have failed"),
    (e: unknown) => e as RpcError,
  );

describe("createRpcClient: the wire", () => {
  it("posts JSON-RPC 2.0 as application/json, with ids that never repeat across requests and batches, and [] for missing params", async () => {
    seen.length = 0;
    const rpc = createRpcClient(url);
    await rpc.request("echo", [1]);
    await rpc.batch([
      { method: "echo", params: [2] },
      { method: "echo", params: [3] },
    ]);
    await rpc.batchSettled([{ method: "echo" }]);
    await rpc.request("echo", []);
    expect(seen.map((s) => s.headers["content-type"])).toEqual(["application/json", "application/json", "application/json", "application/json"]);
    expect(seen.map((s) => s.body)).toEqual([
      { jsonrpc: "2.0", id: 1, method: "echo", params: [1] },
      [
        { jsonrpc: "2.0", id: 2, method: "echo", params: [2] },
        { jsonrpc: "2.0", id: 3, method: "echo", params: [3] },
      ],
      [{ jsonrpc: "2.0", id: 4, method: "echo", params: [] }],
      { jsonrpc: "2.0", id: 5, method: "echo", params: [] },
    ]);
  });

  it("sends nothing for an empty batch", async () => {
    seen.length = 0;
    const rpc = createRpcClient(url);
    expect(await rpc.batch([])).toEqual([]);
    expect(await rpc.batchSettled([])).toEqual([]);
    expect(seen).toEqual([]);
  });
});

describe("createRpcClient: answers it refuses", () => {
  it("takes an answer of exactly the cap, refuses one byte more; the default cap is 256 MiB, not bytes", async () => {
    const size = Buffer.byteLength(JSON.stringify({ jsonrpc: "2.0", id: 1, result: "x".repeat(600) }));
    expect(await createRpcClient(url, { maxResponseBytes: size }).request("long", [])).toBe("x".repeat(600));
    expect(await failure(createRpcClient(url, { maxResponseBytes: size - 1 }).request("long", []))).toMatchObject({
      kind: "response",
      code: -32005,
      reason: `response too large (${size} bytes)`,
    });
    expect(await createRpcClient(url).request("long", [])).toBe("x".repeat(600));
  });

  it("maps HTTP 413 to -32005 (the range logic shrinks on it), keeping kind http and the status", async () => {
    expect(await failure(createRpcClient(url).request("http413", []))).toMatchObject({ kind: "http", status: 413, code: -32005, reason: "HTTP 413" });
  });

  it("fails an answer without a body (a 304) as RpcError, whether or not it claims a length above the cap", async () => {
    const e = await failure(createRpcClient(url).request("http304", []));
    expect(e).toBeInstanceOf(RpcError);
    expect(e).toMatchObject({ kind: "http", status: 304, code: undefined });
    const big = await failure(createRpcClient(url, { maxResponseBytes: 1_000 }).request("big304", []));
    expect(big).toBeInstanceOf(RpcError);
    expect(big).toMatchObject({ kind: "response", code: -32005 });
  });

  it("a connection dropped mid-body is no answer (transport, 'response interrupted', with the cause)", async () => {
    const e = await failure(createRpcClient(url).request("halfbody", []));
    expect(e).toBeInstanceOf(RpcError);
    expect(e.kind).toBe("transport");
    expect(e.reason).toMatch(/^response interrupted: /);
    expect(e.cause).toBeInstanceOf(Error);
  });

  it("a request that cannot be sent says so, with the fetch error as cause", async () => {
    const e = await failure(createRpcClient("http://127.0.0.1:9/").request("echo", []));
    expect(e.reason).toMatch(/^request failed: ./);
    expect(e.message).toBe(`echo: ${e.reason}`);
    expect(e.cause).toBeInstanceOf(Error);
  });

  it("a batch answer missing a call is a malformed answer, named after the missing call", async () => {
    const e = await failure(createRpcClient(url).batchSettled([{ method: "missing" }, { method: "other" }]));
    expect(e).toBeInstanceOf(RpcError);
    expect(e).toMatchObject({ kind: "response", method: "other", reason: "missing batch response" });
  });

  it("quotes at most 200 characters of a batch answer that is not an array", async () => {
    const e = await failure(createRpcClient(url).batch([{ method: "bigobject", params: [] }]));
    expect(e.kind).toBe("response");
    expect(e.reason).toBe(`batch response is not an array: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: "x".repeat(600) }).slice(0, 200)}`);
  });

  it("a JSON-RPC error without a message gets a generic reason and keeps its code", async () => {
    expect(await failure(createRpcClient(url).request("nomessage", []))).toMatchObject({
      kind: "error",
      code: -32601,
      reason: "JSON-RPC error",
      message: "nomessage: JSON-RPC error",
    });
  });
});

describe("RpcError", () => {
  it("is named RpcError; without a kind it is a JSON-RPC error when it has a code, else a malformed answer", () => {
    const withCode = new RpcError("m", "boom", { code: 3 });
    expect(withCode).toMatchObject({ name: "RpcError", kind: "error", code: 3, reason: "boom", message: "m: boom", status: undefined });
    expect(new RpcError("m", "boom")).toMatchObject({ kind: "response", code: undefined });
    expect(new RpcError("m", "boom", { code: 0 }).kind).toBe("error");
    expect(new RpcError("m", "boom", { code: 3, kind: "http", status: 500 })).toMatchObject({ kind: "http", status: 500 });
  });
});
