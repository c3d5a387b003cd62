/** The columns of a delivery row as deliveryJson reads them. */
export const DELIVERY_COLUMNS = `id, event_id::text AS event_id, type, status, attempts, last_http_status, last_error, last_response_ms,
  last_attempt_at, next_attempt_at, created_at, updated_at, completed_at, last_request_body, last_request_headers`;

/** A delivery as the API shows it. */
export function deliveryJson(r: Record<string, unknown>) {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);
  return {
    id: r.id as string,
    event_id: r.event_id === null ? null : Number(r.event_id),
    type: r.type as string,
    status: r.status as string,
    attempts: r.attempts as number,
    last_http_status: (r.last_http_status as number | null) ?? null,
    last_error: (r.last_error as string | null) ?? null,
    last_response_ms: (r.last_response_ms as number | null) ?? null,
    last_attempt_at: iso(r.last_attempt_at),
    next_attempt_at: iso(r.next_attempt_at),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    completed_at: iso(r.completed_at),
    // What the last attempt sent, as the worker recorded it (docs/webhooks.md § Delivery log); null before the first attempt.
    last_request_body: (r.last_request_body as string | null) ?? null,
    last_request_headers: (r.last_request_headers as Record<string, string> | null) ?? null,
  };
}
