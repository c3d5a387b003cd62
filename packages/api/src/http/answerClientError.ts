import type { Duplex } from "node:stream";

/** Node's parser errors (`clientError`) and the project's code for each; anything else is a plain 400. */
const CLIENT_ERRORS: Record<string, [status: number, reason: string, code: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    "Request Header Fields Too Large",
    "request_header_too_large",
    "the request line and headers are larger than the server accepts (16 KiB)",
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "request_timeout", "the request was not received in time"],
};

/**
 * The server's `clientError` handler: a request Node's HTTP parser refuses before any handler runs (a URL or headers
 * over the 16 KiB limit, a malformed request line, a timeout) is answered with the project's JSON error body instead
 * of Node's bare status line, then the connection is closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
  const [status, reason, code, message] = CLIENT_ERRORS[error.code ?? ""] ?? [400, "Bad Request", "bad_request", "the request is not valid HTTP"];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`,
  );
}
