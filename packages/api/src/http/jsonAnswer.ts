import type { ServerResponse } from "node:http";

/** A JSON response, serialized once: what is written to each socket that asked for it. */
export interface JsonAnswer {
  status: number;
  headers: Record<string, string>;
  /** A string, as Node writes it to a socket without an intermediate Buffer. */
  body: string;
}

/** Serializes `body` with open CORS; `headers` adds to (or overrides) the defaults. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): JsonAnswer {
  const text = JSON.stringify(body);
  return {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(text)),
      "access-control-allow-origin": "*",
      ...headers,
    },
    body: text,
  };
}

/** Writes an answer (headers only for HEAD). The same answer may be written to any number of responses. */
export function writeJsonAnswer(res: ServerResponse, answer: JsonAnswer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(res.req?.method === "HEAD" ? undefined : answer.body);
}
