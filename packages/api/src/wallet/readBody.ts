import type { IncomingMessage } from "node:http";
import { WalletError } from "./WalletError.ts";

const LIMIT = 64 * 1024;

/** Reads a JSON object body (≤ 64 KiB; empty reads as `{}`); anything else is a 4xx WalletError. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > LIMIT) throw new WalletError("payload_too_large", `request body is larger than ${LIMIT} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > LIMIT) throw new WalletError("payload_too_large", `request body is larger than ${LIMIT} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  if (!/^application\/(.+\+)?json\b/i.test(req.headers["content-type"] ?? "")) throw new WalletError("unsupported_media_type", "send the body as application/json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WalletError("invalid_body", "the body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new WalletError("invalid_body", "the body must be a JSON object");
  return parsed as Record<string, unknown>;
}

/** The raw body text (for the JSON-RPC relay), same size limit. */
export async function readRawBody(req: IncomingMessage, limit = 256 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new WalletError("payload_too_large", `request body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
