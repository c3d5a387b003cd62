import type { ServerResponse } from "node:http";
import { sendJson } from "./sendJson.ts";

/** Writes the project's error shape: `{ "error": { "code": "snake_case", "message": "…" } }`, never cached. */
export function sendError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error: { code, message } }, { "cache-control": "no-store", ...headers });
}
