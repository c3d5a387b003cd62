import { CliError, EXIT, exitCodeForApiError } from "./exitCodes.ts";
import { VERSION } from "./version.ts";

/** A non-2xx answer of the API: `{ error: { code, message } }`. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null,
  ) {
    super(exitCodeForApiError(status, code), message, { code, status });
    this.name = "ApiError";
  }
}

export interface ApiResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  bearer?: string;
  /** Extra request headers (e.g. Idempotency-Key). */
  headers?: Record<string, string>;
  timeoutMs?: number;
  query?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

export const USER_AGENT = `agent-ledger-cli/${VERSION} (node ${process.versions.node})`;

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export function parseRetryAfterHeader(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

export interface ApiClient {
  base: string;
  request<T>(method: "GET" | "POST" | "DELETE", path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
}

export function createApiClient(base: string, fetchImpl: typeof fetch = fetch): ApiClient {
  return {
    base,
    async request<T>(method: "GET" | "POST" | "DELETE", path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
      const url = new URL(base + path);
      for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
      const headers: Record<string, string> = { accept: "application/json", "user-agent": USER_AGENT, ...options.headers };
      if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
      if (options.body !== undefined) headers["content-type"] = "application/json";
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
      const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
      let res: Response;
      let text: string;
      try {
        res = await fetchImpl(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), signal });
        text = await res.text();
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason ?? error;
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const why = timeout.aborted ? `no answer within ${Math.round((options.timeoutMs ?? 30_000) / 1000)} s` : cause?.code ?? cause?.message ?? (error as Error).message;
        throw new CliError(EXIT.UNREACHABLE, `cannot reach the API at ${base} (${why})`, { code: "unreachable", hint: "is the API running? set --api or AGENT_LEDGER_API" });
      }
      let body: unknown = null;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
      }
      if (!res.ok) {
        const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
        const code = typeof err?.code === "string" ? err.code : `http_${res.status}`;
        const message = typeof err?.message === "string" ? err.message : `${method} ${path} answered ${res.status} ${res.statusText}`.trim();
        throw new ApiError(res.status, code, message, parseRetryAfterHeader(res.headers.get("retry-after")));
      }
      if (body === null && text) throw new CliError(EXIT.ERROR, `${method} ${path} answered ${res.status} with something that is not JSON`);
      return { status: res.status, body: body as T, headers: res.headers };
    },
  };
}
