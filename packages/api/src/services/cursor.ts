import { z } from "zod";
import { ApiError } from "../errors.ts";

/**
 * Opaque pagination cursors: base64url of a small JSON object. Clients pass `nextCursor` back unchanged;
 * anything that does not decode to the expected shape is a 400 `invalid_cursor`.
 */
export function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

export function decodeCursor<T>(cursor: string, schema: z.ZodType<T>): T {
  if (cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw new ApiError("invalid_cursor", "cursor is not one this API issued");
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new ApiError("invalid_cursor", "cursor is not one this API issued");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiError("invalid_cursor", "cursor is not one this API issued");
  return parsed.data;
}

const INT8_MAX = 9223372036854775807n;
const idCursor = z.object({ id: z.string().regex(/^[1-9][0-9]{0,18}$/) }).strict();
const offsetCursor = z.object({ o: z.number().int().min(1).max(10_000) }).strict();

/** Keyset cursor over agent_events.id (pages go to smaller ids). */
export function decodeIdCursor(cursor: string | null | undefined): bigint | null {
  if (cursor === null || cursor === undefined) return null;
  const id = BigInt(decodeCursor(cursor, idCursor).id);
  if (id > INT8_MAX) throw new ApiError("invalid_cursor", "cursor is not one this API issued");
  return id;
}

export function encodeIdCursor(id: bigint): string {
  return encodeCursor({ id: id.toString() });
}

/** Offset cursor for small, ranked lists (search hits). */
export function decodeOffsetCursor(cursor: string | null | undefined): number {
  if (cursor === null || cursor === undefined) return 0;
  return decodeCursor(cursor, offsetCursor).o;
}

export function encodeOffsetCursor(offset: number): string {
  return encodeCursor({ o: offset });
}
