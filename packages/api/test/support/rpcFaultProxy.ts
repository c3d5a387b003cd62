import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the proxy does to `eth_sendRawTransactionSync` (every other call is forwarded untouched):
 * - `none`: forwards it;
 * - `error_after_forward`: forwards it (the node takes and mines the transaction), then answers a JSON-RPC error
 *   instead of the receipt — by default EIP-7966's timeout (code 4), as a node whose synchronous wait timed out does;
 * - `drop_after_forward`: forwards it, then destroys the connection without an answer;
 * - `http_502_after_forward`: forwards it, then answers HTTP 502 (a load balancer whose upstream timed out);
 * - `hang_after_forward`: forwards it, never answers (the caller's own timeout ends it);
 * - `refuse`: does not forward it and answers a JSON-RPC refusal (-32003), as the node does for an invalid transaction.
 */
export type SendFault = "none" | "error_after_forward" | "drop_after_forward" | "http_502_after_forward" | "hang_after_forward" | "refuse";

export interface RpcFaultProxy {
  url: string;
  fault: SendFault;
  /** The JSON-RPC error answered by `error_after_forward`. */
  sendError: { code: number; message: string };
  /** While true, eth_getTransactionReceipt connections are dropped (the node cannot be asked). */
  receiptsDown: boolean;
  /** eth_sendRawTransactionSync requests the proxy forwarded to the node. */
  forwardedSends: number;
  close(): Promise<void>;
}

/** A JSON-RPC proxy on loopback in front of `upstream` that fails the way a node or a network does. */
export async function startRpcFaultProxy(upstream: string): Promise<RpcFaultProxy> {
  const hanging = new Set<ServerResponse>();
  const state: RpcFaultProxy = {
    url: "",
    fault: "none",
    sendError: { code: 4, message: "The transaction was added to the mempool but wasn't processed in 2s" },
    receiptsDown: false,
    forwardedSends: 0,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const forward = async (body: string) => {
    const res = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: res.status, text: await res.text() };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let parsed: { id?: unknown; method?: string } | unknown[] = {};
    try {
      parsed = JSON.parse(body);
    } catch {
      // forwarded as is
    }
    const method = Array.isArray(parsed) ? null : parsed.method;
    const id = Array.isArray(parsed) ? null : (parsed.id ?? null);
    if (method === "eth_getTransactionReceipt" && state.receiptsDown) return void req.socket.destroy();
    if (method === "eth_sendRawTransactionSync" && state.fault !== "none") {
      if (state.fault === "refuse") {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32003, message: "insufficient fee token balance: have 0, need 42000" } }));
      }
      state.forwardedSends++;
      await forward(body); // the node has the transaction now (automine: it is even mined)
      switch (state.fault) {
        case "error_after_forward":
          res.writeHead(200, { "content-type": "application/json" });
          return void res.end(JSON.stringify({ jsonrpc: "2.0", id, error: state.sendError }));
        case "drop_after_forward":
          return void req.socket.destroy();
        case "http_502_after_forward":
          res.writeHead(502, { "content-type": "text/html" });
          return void res.end("<html><body>502 Bad Gateway</body></html>");
        case "hang_after_forward":
          hanging.add(res);
          res.on("close", () => hanging.delete(res));
          return;
      }
    }
    if (method === "eth_sendRawTransactionSync") state.forwardedSends++;
    const out = await forward(body);
    res.writeHead(out.status, { "content-type": "application/json" });
    res.end(out.text);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
