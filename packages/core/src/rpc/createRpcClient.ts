/** A JSON-RPC error, or a transport failure, with enough shape to decide between retry and shrink. */
export class RpcError extends Error {
  readonly code: number | undefined;
  readonly method: string;
  constructor(method: string, message: string, options: { code?: number; cause?: unknown } = {}) {
    super(`${method}: ${message}`, { cause: options.cause });
    this.name = "RpcError";
    this.method = method;
    this.code = options.code;
  }
}

export interface RpcClient {
  url: string;
  request<T>(method: string, params: unknown[]): Promise<T>;
  batch<T>(calls: { method: string; params: unknown[] }[]): Promise<T[]>;
}

/**
 * The project's JSON-RPC client: plain JSON-RPC 2.0 over fetch (Node and browsers), one request or one batch, a
 * per-request timeout, typed errors (RpcError: JSON-RPC code, or -32005 for an answer too large). Kept instead of
 * viem's http transport on purpose: the indexer's hot path (eth_getLogs over large ranges, measured in BENCHMARKS.md)
 * takes the raw JSON without viem's per-field formatting and needs the response-size cap its adaptive range logic
 * reacts to. Used by the indexer and the API's chain-head probe.
 */
export function createRpcClient(url: string, options: { timeoutMs?: number; maxResponseBytes?: number } = {}): RpcClient {
  const { timeoutMs = 30_000, maxResponseBytes = 256 * 1024 * 1024 } = options;
  let id = 0;
  async function post(method: string, body: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (cause) {
      throw new RpcError(method, `request failed: ${(cause as Error).message}`, { cause });
    }
    const length = Number(response.headers.get("content-length") ?? 0);
    if (length > maxResponseBytes) throw new RpcError(method, `response too large (${length} bytes)`, { code: -32005 });
    if (!response.ok) throw new RpcError(method, `HTTP ${response.status}`, { code: response.status === 413 ? -32005 : undefined });
    try {
      return await response.json();
    } catch (cause) {
      throw new RpcError(method, `invalid JSON response: ${(cause as Error).message}`, { cause });
    }
  }
  return {
    url,
    async request<T>(method: string, params: unknown[]): Promise<T> {
      const res = (await post(method, { jsonrpc: "2.0", id: ++id, method, params })) as { result?: T; error?: { code: number; message: string } };
      if (res.error) throw new RpcError(method, res.error.message, { code: res.error.code });
      return res.result as T;
    },
    async batch<T>(calls: { method: string; params: unknown[] }[]): Promise<T[]> {
      if (calls.length === 0) return [];
      const first = ++id;
      id += calls.length;
      const res = (await post(calls[0]!.method, calls.map((c, i) => ({ jsonrpc: "2.0", id: first + i, ...c })))) as {
        id: number; result?: T; error?: { code: number; message: string };
      }[];
      if (!Array.isArray(res)) throw new RpcError(calls[0]!.method, "batch response is not an array");
      const byId = new Map(res.map((r) => [r.id, r]));
      return calls.map((c, i) => {
        const r = byId.get(first + i);
        if (!r) throw new RpcError(c.method, "missing batch response");
        if (r.error) throw new RpcError(c.method, r.error.message, { code: r.error.code });
        return r.result as T;
      });
    },
  };
}
