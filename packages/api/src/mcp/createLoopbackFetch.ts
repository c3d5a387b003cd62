import { request, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

/**
 * The fetch the MCP tools of `/mcp` use: a real HTTP request to this same server over loopback, so every API rule
 * (routing, validation, auth, rate limits, error codes, logs, metrics) applies exactly as to any client.
 *
 * The API sees the MCP caller, not itself: before a loopback request is sent, its connection (local address and
 * port, known once connected and before a byte is written) is registered with the caller's client address; when that
 * request reaches the server, {@link LoopbackRegistry.adopt} makes the socket report the caller's address and the
 * caller's `X-Forwarded-For` is forwarded as is, so TRUST_PROXY resolves the same client and the same rate-limit
 * budget is charged. Only connections this process opened itself are ever adopted: the registry key is the exact
 * (address, port) pair of a socket it is holding open; nothing a remote client sends can claim another address.
 */
export interface LoopbackRegistry {
  /** Called first for every request of the server: a registered loopback request takes on its caller's address. */
  adopt(req: IncomingMessage): void;
  /** A fetch for the tools of one MCP request, on behalf of `caller`. */
  fetchFor(caller: { remoteAddress: string | undefined; forwardedFor: string | string[] | undefined; requestId: string | undefined }): FetchFn;
}

type FetchFn = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<Response>;

const key = (address: string | undefined, port: number | undefined) => `${address ?? ""}|${port ?? ""}`;

/** Where to reach `server` over loopback (its own address, or the loopback one of a wildcard bind). */
function target(server: Server): { host: string; port: number } {
  const a = server.address() as AddressInfo | null;
  if (!a || typeof a !== "object") throw new Error("the API server is not listening on a TCP port");
  const host = a.address === "0.0.0.0" ? "127.0.0.1" : a.address === "::" ? "::1" : a.address;
  return { host, port: a.port };
}

export function createLoopbackRegistry(getServer: () => Server): LoopbackRegistry {
  const pending = new Map<string, string | undefined>();
  return {
    adopt(req) {
      const socket = req.socket;
      const k = key(socket.remoteAddress, socket.remotePort);
      if (!pending.has(k)) return;
      const caller = pending.get(k);
      pending.delete(k); // one request per loopback connection
      Object.defineProperty(socket, "remoteAddress", { value: caller, configurable: true });
    },
    fetchFor(caller) {
      return (url, init) =>
        new Promise<Response>((resolve, reject) => {
          const { host, port } = target(getServer());
          const u = new URL(url);
          const headers: Record<string, string | string[]> = { ...init.headers, connection: "close" };
          if (caller.forwardedFor !== undefined) headers["x-forwarded-for"] = caller.forwardedFor;
          if (caller.requestId) headers["x-request-id"] = caller.requestId;
          if (init.body !== undefined) headers["content-length"] = String(Buffer.byteLength(init.body));
          let registered: string | null = null;
          const req = request({
            host,
            port,
            method: init.method,
            path: u.pathname + u.search,
            headers,
            signal: init.signal,
            createConnection: () => {
              const socket: Socket = connect({ host, port });
              socket.once("connect", () => {
                registered = key(socket.localAddress, socket.localPort);
                pending.set(registered, caller.remoteAddress);
              });
              socket.once("close", () => {
                if (registered) pending.delete(registered);
              });
              return socket;
            },
          });
          req.on("error", reject);
          req.on("response", (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("error", reject);
            res.on("end", () => {
              const h = new Headers();
              for (const [name, value] of Object.entries(res.headers as IncomingHttpHeaders)) {
                if (Array.isArray(value)) for (const v of value) h.append(name, v);
                else if (value !== undefined) h.set(name, value);
              }
              const status = res.statusCode ?? 500;
              const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
              resolve(new Response(body, { status, headers: h }));
            });
          });
          req.end(init.body);
        });
    },
  };
}
