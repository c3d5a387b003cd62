/**
 * How a JSON-RPC call failed: `error` — the node answered a JSON-RPC error object (`code`, `reason` as it sent them);
 * `http` — an HTTP status other than 2xx (`status`); `transport` — no answer at all (timeout, refused or dropped
 * connection; the fetch error is the `cause`); `response` — an answer that is not JSON-RPC (not JSON, above the size
 * cap, a batch answer that is not an array or misses a call).
 */
export type RpcErrorKind = "error" | "http" | "transport" | "response";

/** A JSON-RPC error, or a transport failure, with enough shape to decide between retry and shrink. */
export class RpcError extends Error {
  readonly code: number | undefined;
  readonly method: string;
  readonly kind: RpcErrorKind;
  /** The message without the method prefix (for `error`, the node's own message). */
  readonly reason: string;
  /** The HTTP status, when the node answered one. */
  readonly status: number | undefined;
  constructor(method: string, message: string, options: { code?: number; cause?: unknown; kind?: RpcErrorKind; status?: number } = {}) {
    super(`${method}: ${message}`, { cause: options.cause });
    this.name = "RpcError";
    this.method = method;
    this.code = options.code;
    this.kind = options.kind ?? (options.code !== undefined ? "error" : "response");
    this.reason = message;
    this.status = options.status;
  }
}

/** One call's answer as the node sent it: a result, or a JSON-RPC error object (never thrown). */
export type RpcOutcome<T = unknown> = { result?: T; error?: { code: number; message: string } };

export interface RpcClient {
  url: string;
  request<T>(method: string, params: unknown[]): Promise<T>;
  batch<T>(calls: { method: string; params: unknown[] }[]): Promise<T[]>;
  /**
   * One JSON-RPC batch whose per-call errors are answers, not failures: each call's `{ result }` or `{ error }` in call
   * order. Only the transport, HTTP and a malformed answer throw (RpcError).
   */
  batchSettled<T = unknown>(calls: { method: string; params?: unknown[] }[]): Promise<RpcOutcome<T>[]>;
}

/**
 * The project's JSON-RPC client: plain JSON-RPC 2.0 over fetch (Node and browsers), one request or one batch, a
 * per-request timeout, typed errors (RpcError with its kind: a JSON-RPC error object with its code, an HTTP status, no
 * answer, or an answer that is not JSON-RPC; -32005 for an answer too large). Kept instead of viem's http transport on
 * purpose: the indexer's hot path (eth_getLogs over large ranges, measured in BENCHMARKS.md) takes the raw JSON without
 * viem's per-field formatting and needs the response-size cap its adaptive range logic reacts to, and the wallet must
 * tell a node's refusal (a JSON-RPC error object) from an unanswered send. Used by the indexer, the API's chain-head
 * probe, the wallet's chain calls, the devnet helpers and `npm start`; viem's own transport stays where viem's actions
 * (signing, Tempo transactions) need it.
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
      throw new RpcError(method, `request failed: ${(cause as Error).message}`, { cause, kind: "transport" });
    }
    const length = Number(response.headers.get("content-length") ?? 0);
    if (length > maxResponseBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new RpcError(method, `response too large (${length} bytes)`, { code: -32005, kind: "response" });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new RpcError(method, `HTTP ${response.status}`, { code: response.status === 413 ? -32005 : undefined, kind: "http", status: response.status });
    }
    try {
      return await response.json();
    } catch (cause) {
      // a body that is not JSON is the node's answer; a connection that drops mid-body is no answer
      const kind = cause instanceof SyntaxError ? "response" : "transport";
      throw new RpcError(method, `${kind === "response" ? "invalid JSON response" : "response interrupted"}: ${(cause as Error).message}`, { cause, kind });
    }
  }
  async function settled<T>(calls: { method: string; params?: unknown[] }[]): Promise<{ first: number; outcomes: RpcOutcome<T>[] }> {
    const first = id + 1;
    id += calls.length;
    const res = await post(
      calls[0]!.method,
      calls.map((c, i) => ({ jsonrpc: "2.0", id: first + i, method: c.method, params: c.params ?? [] })),
    );
    if (!Array.isArray(res)) throw new RpcError(calls[0]!.method, `batch response is not an array: ${JSON.stringify(res).slice(0, 200)}`, { kind: "response" });
    const byId = new Map((res as ({ id: number } & RpcOutcome<T>)[]).map((r) => [r.id, r]));
    return {
      first,
      outcomes: calls.map((c, i) => {
        const r = byId.get(first + i);
        if (!r) throw new RpcError(c.method, "missing batch response", { kind: "response" });
        return r.error ? { error: r.error } : { result: r.result };
      }),
    };
  }
  // the node's own message; a node that sends none (or not a string) gets a generic one
  const failed = (method: string, e: { code: number; message: unknown }) =>
    new RpcError(method, typeof e.message === "string" ? e.message : "JSON-RPC error", { code: e.code, kind: "error" });
  return {
    url,
    async request<T>(method: string, params: unknown[]): Promise<T> {
      const res = (await post(method, { jsonrpc: "2.0", id: ++id, method, params })) as RpcOutcome<T>;
      if (res.error) throw failed(method, res.error);
      return res.result as T;
    },
    async batch<T>(calls: { method: string; params: unknown[] }[]): Promise<T[]> {
      if (calls.length === 0) return [];
      const { outcomes } = await settled<T>(calls);
      return outcomes.map((r, i) => {
        if (r.error) throw failed(calls[i]!.method, r.error);
        return r.result as T;
      });
    },
    async batchSettled<T>(calls: { method: string; params?: unknown[] }[]): Promise<RpcOutcome<T>[]> {
      if (calls.length === 0) return [];
      return (await settled<T>(calls)).outcomes;
    },
  };
}
