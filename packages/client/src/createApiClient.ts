import { ApiCallError } from "./ApiCallError.ts";
import { apiCallErrorOf } from "./apiCallErrorOf.ts";
import { graphqlDataOf } from "./graphqlDataOf.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What the client hands to fetch (the global fetch fits, in Node and in browsers; the API's MCP endpoint passes a loopback one). */
export interface ApiFetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  credentials?: "omit" | "same-origin" | "include";
}
export type FetchLike = (url: string, init: ApiFetchInit) => Promise<Response>;

export interface ApiClientOptions {
  /** The API's origin, e.g. `http://127.0.0.1:3000` (a trailing slash is dropped); `""` on a page served by the API (same origin). */
  baseUrl: string;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /** An access token sent as `Authorization: Bearer …` on every call that does not say otherwise. */
  bearer?: string | null;
  /** Headers on every call (a user agent, a request id). */
  headers?: Record<string, string>;
  /** Per call, unless the call says otherwise (default 30 s). */
  timeoutMs?: number;
  /** Pages: `same-origin` sends the session cookie. */
  credentials?: ApiFetchInit["credentials"];
  /** The clock for an HTTP-date `Retry-After` (tests). */
  now?: () => Date;
}

export interface CallOptions {
  /** Overrides the client's bearer for this call; null sends none. */
  bearer?: string | null;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** The caller's cancellation: an aborted call rejects with the signal's reason (not an ApiCallError). */
  signal?: AbortSignal;
}

export interface RequestOptions extends CallOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Appended to the path's query string (undefined values left out). */
  query?: Record<string, string | undefined>;
}

export interface ApiAnswer<T> {
  status: number;
  /** The parsed JSON body; null when the answer had no body. */
  body: T;
  headers: Headers;
}

export interface ApiClient {
  readonly baseUrl: string;
  /** One REST call: JSON in and out; any non-2xx answer, a non-JSON body or no answer throws ApiCallError. */
  request<T>(method: HttpMethod, path: string, options?: RequestOptions): Promise<ApiAnswer<T>>;
  /** POST /graphql; answers its `data`, or throws the first error as ApiCallError (`extensions.code`). */
  graphql<T>(query: string, variables?: Record<string, unknown>, options?: CallOptions): Promise<T>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** A string for "why there was no answer": the system error code (ECONNREFUSED, ENOTFOUND…) when fetch gives one. */
function whyUnreachable(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${Number((timeoutMs / 1000).toFixed(1))} s`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown; errors?: { code?: unknown }[] } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error)?.message;
  return typeof code === "string" && code ? code : String(error);
}

/**
 * The one HTTP client of our API, for the CLI, the MCP server and the browser pages: fetch injected, JSON in and out,
 * a bearer token or the page's cookie, a timeout per call, and every failure as one typed {@link ApiCallError}.
 * It does not retry: whether a call may be repeated is the caller's decision (idempotency keys, polling rules).
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const now = options.now ?? (() => new Date());

  async function send(method: string, path: string, body: string | undefined, call: CallOptions): Promise<{ res: Response; json: unknown; text: string }> {
    const headers: Record<string, string> = { accept: "application/json", ...options.headers, ...call.headers };
    const bearer = call.bearer !== undefined ? call.bearer : options.bearer;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const timeoutMs = call.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
    let res: Response;
    let text: string;
    try {
      const init: ApiFetchInit = { method, headers, body, signal };
      if (options.credentials) init.credentials = options.credentials;
      res = await doFetch(base + path, init);
      text = await res.text();
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason ?? error;
      const why = whyUnreachable(error, timeout.aborted, timeoutMs);
      throw new ApiCallError(0, "api_unreachable", `cannot reach the API at ${base || "this site"} (${why})`, null, {
        cause: timeout.aborted ? timeout.reason : error,
      });
    }
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined; // not JSON
      }
    }
    return { res, json, text };
  }

  return {
    baseUrl: base,
    async request<T>(method: HttpMethod, path: string, call: RequestOptions = {}): Promise<ApiAnswer<T>> {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) params.set(k, v);
      const qs = params.toString();
      const target = qs ? `${path}${path.includes("?") ? "&" : "?"}${qs}` : path;
      const { res, json } = await send(method, target, call.body === undefined ? undefined : JSON.stringify(call.body), call);
      if (!res.ok) throw apiCallErrorOf(res.status, json, res.headers, `${method} ${path} answered ${res.status} ${res.statusText}`.trim(), now());
      if (json === undefined) throw new ApiCallError(res.status, "invalid_answer", `${method} ${path} answered ${res.status} with something that is not JSON`);
      return { status: res.status, body: json as T, headers: res.headers };
    },
    async graphql<T>(query: string, variables: Record<string, unknown> = {}, call: CallOptions = {}): Promise<T> {
      const { res, json } = await send("POST", "/graphql", JSON.stringify({ query, variables }), call);
      if (json === undefined && res.ok)
        throw new ApiCallError(res.status, "invalid_answer", `POST /graphql answered ${res.status} with something that is not JSON`);
      return graphqlDataOf<T>(res.status, json ?? null, res.headers, now());
    },
  };
}
