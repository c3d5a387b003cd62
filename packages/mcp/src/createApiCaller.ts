/**
 * How the MCP tools reach the Agent Ledger API: its public HTTP surface (REST `/api/…` and `/graphql`), through the one
 * API client (@agent-ledger/client) and an injected fetch. Every rule (caps, idempotency, validation, rate limits, error
 * codes) stays in the API; this only forwards the call, sends the bearer where a tool asks for it, and lets an error
 * answer throw the client's {@link ApiCallError} carrying the API's own code.
 */
import { ApiCallError, createApiClient, type ApiAnswer, type FetchLike } from "@agent-ledger/client";

export { ApiCallError, type ApiAnswer, type FetchLike };

export interface ApiCallerOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000` (no trailing slash needed). */
  baseUrl: string;
  /** The part of `fetch` the tools use (the global fetch fits; the API's MCP endpoint passes a loopback one). */
  fetch?: FetchLike;
  /** A paired session's access token: sent as `Authorization: Bearer …` on wallet and webhook calls only. */
  bearer?: string | null;
  /** Extra headers on every call (the user agent; the API host adds the caller's request id). */
  headers?: Record<string, string>;
  /** Per call (default 60 s: a payment waits for the chain). */
  timeoutMs?: number;
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

export function createApiCaller(options: ApiCallerOptions): ApiCaller {
  const client = createApiClient({ baseUrl: options.baseUrl, fetch: options.fetch, headers: options.headers, timeoutMs: options.timeoutMs ?? 60_000 });
  const bearer = options.bearer ?? null;
  return {
    baseUrl: client.baseUrl,
    hasBearer: Boolean(bearer),
    rest: <T>(method: "GET" | "POST" | "DELETE", path: string, call: RestCall = {}) =>
      client.request<T>(method, path, { query: call.query, body: call.body, headers: call.headers, bearer: call.auth ? bearer : null }),
    graphql: <T>(query: string, variables: Record<string, unknown> = {}) => client.graphql<T>(query, variables, { bearer: null }),
  };
}
