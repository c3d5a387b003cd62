import type { ServerResponse } from "node:http";
import { jsonAnswer, writeJsonAnswer } from "./jsonAnswer.ts";

/** Writes a JSON body with open CORS. `headers` adds to (or overrides) the defaults. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  writeJsonAnswer(res, jsonAnswer(status, body, headers));
}
