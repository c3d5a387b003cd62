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

/** A JSON body (≤ 64 KiB by default; an empty body reads as `{}`), sent as application/json. */
export async function readJsonBody(req: IncomingMessage, limitBytes = 64 * 1024): Promise<unknown> {
  const text = (await readBodyText(req, limitBytes)).trim();
  if (text === "") return {};
  if (!/^application\/(.+\+)?json\b/i.test(req.headers["content-type"] ?? "")) throw new BodyError("unsupported_media_type", "send the body as application/json");
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyError("invalid_body", "the body is not valid JSON");
  }
}

/** A JSON object body; arrays and scalars are refused with 400 `invalid_body`. */
export async function readJsonObject(req: IncomingMessage, limitBytes = 64 * 1024): Promise<Record<string, unknown>> {
  const parsed = await readJsonBody(req, limitBytes);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new BodyError("invalid_body", "the body must be a JSON object");
  return parsed as Record<string, unknown>;
}
