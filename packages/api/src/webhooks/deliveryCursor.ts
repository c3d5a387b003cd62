import { WebhookError } from "./WebhookError.ts";

/**
 * The cursor names the last row shown by (created_at, id), created_at to the microsecond as PostgreSQL keeps it (`at`,
 * the query's cursor_at): a millisecond ISO string (Date.toISOString) once skipped every row of the same millisecond
 * written later in it, e.g. all but the first of the deliveries one dispatch pass creates together.
 */
export function encodeDeliveryCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString("base64url");
}

/** The inverse of encodeDeliveryCursor; 400 invalid_cursor for anything else. */
export function decodeDeliveryCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    if (
      typeof createdAt !== "string" ||
      !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/.test(createdAt) ||
      Number.isNaN(Date.parse(createdAt)) ||
      typeof id !== "string" ||
      !/^[0-9a-f-]{36}$/.test(id)
    )
      throw new Error("shape");
    return { createdAt, id };
  } catch {
    throw new WebhookError("invalid_cursor", "cursor is not one this API returned");
  }
}
