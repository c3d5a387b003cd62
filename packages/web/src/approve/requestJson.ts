import { ApiError } from "./describeError.ts";

/**
 * One same-origin JSON call to our API, for every page that signs in with the passkey (the approval page and the
 * owner console): the session cookie goes along (`credentials: same-origin`; browsers add `Origin`, which the API
 * checks on cookie writes), a JSON body when given, a timeout; a non-2xx answer throws ApiError with the API's
 * `{ error: { code, message } }` (or `http_<status>` and the start of the text when the body is not that).
 */
export async function requestJson<T>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown, timeoutMs = 30_000): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(res.status, err?.code ?? `http_${res.status}`, err?.message ?? (text.slice(0, 200) || res.statusText));
  }
  return json as T;
}
