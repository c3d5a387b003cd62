import type { IncomingMessage } from "node:http";
import { ApiError } from "../errors.ts";

/** A request body every surface refuses the same way (413, 415, 400): the ApiError of the body reader. */
export class BodyError extends ApiError {
  override name = "BodyError";
}

/** The raw body text, at most `limitBytes` (checked against Content-Length first, then while reading). */
export async function readBodyText(req: IncomingMessage, limitBytes: number): Promise<string> {
  const tooLarge = () => new BodyError("payload_too_large", `request body is larger than ${limitBytes} bytes`);
  if (Number(req.headers["content-length"] ?? 0) > limitBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The deepest nesting of arrays and objects any JSON the API reads may have (every body, GraphQL variables and
 * extensions). What the API accepts nests a few levels (a relay transaction, the deepest, about 6); a deeper value would
 * only make recursive code further on (String() of an array, a schema check, a converter) run out of stack: a 500.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays / objects more than `max` levels deep (`{}` and `[]` are 1). Iterative: any depth is safe. */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

/** The refusal of a JSON value nested deeper than MAX_JSON_DEPTH (400 `invalid_body`). */
export const tooDeep = () => new BodyError("invalid_body", `the JSON is nested more than ${MAX_JSON_DEPTH} levels deep`);

/**
 * JSON text of a request body, parsed: 400 `invalid_body` when it is not JSON or nests deeper than MAX_JSON_DEPTH
 * (JSON.parse itself is iterative in V8, so parsing first is safe; the check runs before anything recursive sees it).
 */
export function parseJsonText(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BodyError("invalid_body", "the body is not valid JSON");
  }
  if (exceedsJsonDepth(parsed)) throw tooDeep();
  return parsed;
}

/** A JSON body (≤ 64 KiB by default; an empty body reads as `{}`), sent as application/json, at most MAX_JSON_DEPTH deep. */
export async function readJsonBody(req: IncomingMessage, limitBytes = 64 * 1024): Promise<unknown> {
  const text = (await readBodyText(req, limitBytes)).trim();
  if (text === "") return {};
  if (!/^application\/(.+\+)?json\b/i.test(req.headers["content-type"] ?? ""))
    throw new BodyError("unsupported_media_type", "send the body as application/json");
  return parseJsonText(text);
}

/** A JSON object body; arrays and scalars are refused with 400 `invalid_body`. */
export async function readJsonObject(req: IncomingMessage, limitBytes = 64 * 1024): Promise<Record<string, unknown>> {
  const parsed = await readJsonBody(req, limitBytes);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new BodyError("invalid_body", "the body must be a JSON object");
  return parsed as Record<string, unknown>;
}
