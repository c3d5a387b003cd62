/**
 * How the MCP tools reach the Agent Ledger API: its public HTTP surface (REST `/api/…` and `/graphql`), through an
 * injected fetch. Every rule (caps, idempotency, validation, rate limits, error codes) stays in the API; this only
 * forwards the call and turns an error answer into an {@link ApiCallError} carrying the API's own code.
 */

/** The part of `fetch` the tools use (the global fetch fits; the API's MCP endpoint passes a loopback one). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<Response>;

export interface ApiCallerOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000` (no trailing slash needed). */
  baseUrl: string;
  fetch?: FetchLike;
  /** A paired session's access token: sent as `Authorization: Bearer …` on wallet and webhook calls only. */
  bearer?: string | null;
  /** Extra headers on every call (the user agent; the API host adds the caller's request id). */
  headers?: Record<string, string>;
  /** Per call (default 60 s: a payment waits for the chain). */
  timeoutMs?: number;
}

/** A non-2xx answer of the API, or no answer at all (`status` 0, `code` `api_unreachable`). */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ApiCallError";
  }
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RestCall {
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the bearer token (wallet and webhook paths). */
  auth?: boolean;
}

export interface ApiCaller {
  readonly baseUrl: string;
  /** Whether a bearer token was configured (wallet and webhook tools need one). */
  readonly hasBearer: boolean;
  rest<T>(method: "GET" | "POST" | "DELETE", path: string, call?: RestCall): Promise<ApiAnswer<T>>;
  /** A public GraphQL query, sent without credentials; an answer with `errors` throws the first one's code. */
  graphql<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

function retryAfter(value: string | null): number | null {
  if (!value || !/^\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}

export function createApiCaller(options: ApiCallerOptions): ApiCaller {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const timeoutMs = options.timeoutMs ?? 60_000;

  async function send(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<{ res: Response; json: unknown }> {
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, { method, headers: { accept: "application/json", ...options.headers, ...headers }, body, signal: AbortSignal.timeout(timeoutMs) });
      text = await res.text();
    } catch (error) {
      const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
      const why = (error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : cause?.code ?? cause?.errors?.[0]?.code ?? (error as Error).message;
      throw new ApiCallError(0, "api_unreachable", `the Agent Ledger API at ${base} did not answer (${why})`, null, { cause: error });
    }
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { res, json };
  }

  return {
    baseUrl: base,
    hasBearer: Boolean(options.bearer),
    async rest<T>(method: "GET" | "POST" | "DELETE", path: string, call: RestCall = {}): Promise<ApiAnswer<T>> {
      const url = new URL(base + path);
      for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
      const headers: Record<string, string> = { ...call.headers };
      if (call.auth && options.bearer) headers.authorization = `Bearer ${options.bearer}`;
      if (call.body !== undefined) headers["content-type"] = "application/json";
      const { res, json } = await send(method, url.href, headers, call.body === undefined ? undefined : JSON.stringify(call.body));
      if (!res.ok) {
        const err = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
        throw new ApiCallError(
          res.status,
          typeof err?.code === "string" ? err.code : `http_${res.status}`,
          typeof err?.message === "string" ? err.message : `${method} ${path} answered ${res.status}`,
          retryAfter(res.headers.get("retry-after")),
        );
      }
      if (json === null) throw new ApiCallError(res.status, "invalid_answer", `${method} ${path} answered something that is not JSON`);
      return { status: res.status, body: json as T, headers: res.headers };
    },
    async graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
      const { res, json } = await send("POST", `${base}/graphql`, { "content-type": "application/json" }, JSON.stringify({ query, variables }));
      const answer = json as { data?: T; errors?: { message?: string; extensions?: { code?: string } }[]; error?: { code?: string; message?: string } } | null;
      const first = answer?.errors?.[0];
      if (first) throw new ApiCallError(res.status, first.extensions?.code ?? "graphql_error", first.message ?? "GraphQL error", retryAfter(res.headers.get("retry-after")));
      if (!res.ok || !answer?.data) {
        throw new ApiCallError(res.status, answer?.error?.code ?? `http_${res.status}`, answer?.error?.message ?? `POST /graphql answered ${res.status}`, retryAfter(res.headers.get("retry-after")));
      }
      return answer.data;
    },
  };
}
