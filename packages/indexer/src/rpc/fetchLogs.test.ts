import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TRANSFER_TOPIC } from "@agent-ledger/core";
import { afterEach, describe, expect, it } from "vitest";
import { createRpcClient } from "./createRpcClient.ts";
import { fetchLogs } from "./fetchLogs.ts";

// fetchLogs against a JSON-RPC node on loopback that serves a made-up chain: one Transfer in each block listed in
// `logBlocks`, Tempo-like headers (`timestampMillis` = seconds × 1000 + 250). The node records what it was asked, in
// order, and can hold its eth_getLogs answer until a header batch has arrived (at most `holdMs`).

type Call = { method: string; params: unknown[] };
const SECONDS = 1_800_000_000;
const word = (n: number | bigint) => `0x${n.toString(16).padStart(64, "0")}`;
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

async function startNode(logBlocks: number[], options: { holdMs?: number } = {}) {
  const seen: string[] = []; // "logs asked", "logs answered", "headers <blocks>"
  let headersArrived: () => void = () => {};
  const headers = new Promise<void>((r) => (headersArrived = r));
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const request = JSON.parse(body) as (Call & { id: number }) | (Call & { id: number })[];
    const answer = async (c: Call & { id: number }) => {
      if (c.method === "eth_getLogs") {
        seen.push("logs asked");
        const { fromBlock, toBlock } = c.params[0] as { fromBlock: string; toBlock: string };
        if (options.holdMs) await Promise.race([headers, new Promise((r) => setTimeout(r, options.holdMs))]);
        seen.push("logs answered");
        const result = logBlocks
          .filter((b) => b >= Number(fromBlock) && b <= Number(toBlock))
          .map((b) => ({
            address: "0x20c0000000000000000000000000000000000001",
            topics: [TRANSFER_TOPIC, word(1), word(2)],
            data: word(5),
            blockNumber: hex(b),
            blockHash: word(b),
            blockTimestamp: hex(SECONDS + b),
            transactionHash: word(1000 + b),
            transactionIndex: "0x0",
            logIndex: "0x0",
            removed: false,
          }));
        return { jsonrpc: "2.0", id: c.id, result };
      }
      if (c.method === "eth_getBlockByNumber") {
        const b = Number(c.params[0]);
        return { jsonrpc: "2.0", id: c.id, result: { number: hex(b), timestamp: hex(SECONDS + b), timestampMillis: hex((SECONDS + b) * 1000 + 250) } };
      }
      return { jsonrpc: "2.0", id: c.id, error: { code: -32601, message: "method not found" } };
    };
    let out: unknown;
    if (Array.isArray(request)) {
      seen.push(`headers ${request.map((c) => Number(c.params[0])).join(",")}`);
      headersArrived();
      out = await Promise.all(request.map(answer));
    } else out = await answer(request);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { rpc: createRpcClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), seen };
}

describe("fetchLogs: block time milliseconds", () => {
  it("asks for a short range's headers while its eth_getLogs is still outstanding, and keeps the milliseconds", async () => {
    // The node answers eth_getLogs only once the headers were asked for (or after 2 s): asked one after the other,
    // the range would take the 2 s and the headers would come after the logs' answer.
    const { rpc, seen } = await startNode([10, 12], { holdMs: 2_000 });
    const logs = await fetchLogs(rpc, 10n, 13n, { enabled: true });
    expect(seen).toHaveLength(3);
    expect(seen.slice(0, 2).sort()).toEqual(["headers 10,11,12,13", "logs asked"]);
    expect(seen[2]).toBe("logs answered");
    expect(logs.map((l) => l.blockTimestampMs)).toEqual([(SECONDS + 10) * 1000 + 250, (SECONDS + 12) * 1000 + 250]);
  });

  it("asks a long range's headers afterwards, only for the blocks that have logs", async () => {
    const { rpc, seen } = await startNode([5, 90]);
    const logs = await fetchLogs(rpc, 0n, 99n, { enabled: true });
    expect(seen).toEqual(["logs asked", "logs answered", "headers 5,90"]);
    expect(logs.map((l) => l.blockTimestampMs)).toEqual([(SECONDS + 5) * 1000 + 250, (SECONDS + 90) * 1000 + 250]);
  });

  it("asks for no header without the option (v0.1), and keeps whole seconds", async () => {
    const { rpc, seen } = await startNode([3]);
    const logs = await fetchLogs(rpc, 0n, 7n);
    expect(seen).toEqual(["logs asked", "logs answered"]);
    expect(logs[0]!.blockTimestamp).toBe(SECONDS + 3);
    expect(logs[0]!.blockTimestampMs).toBeUndefined();
  });
});
