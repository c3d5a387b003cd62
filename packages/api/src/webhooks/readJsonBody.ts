import type { IncomingMessage } from "node:http";
import { WebhookError } from "./WebhookError.ts";

/** Reads a JSON request body of at most `limitBytes`; an empty body reads as `{}`. */
export async function readJsonBody(req: IncomingMessage, limitBytes = 64 * 1024): Promise<unknown> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limitBytes) throw new WebhookError("payload_too_large", `request body is larger than ${limitBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw new WebhookError("payload_too_large", `request body is larger than ${limitBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  const type = req.headers["content-type"] ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) throw new WebhookError("unsupported_media_type", "send the body as application/json");
  try {
    return JSON.parse(text);
  } catch {
    throw new WebhookError("invalid_body", "the body is not valid JSON");
  }
}
