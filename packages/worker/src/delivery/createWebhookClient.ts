import type { AttemptResult } from "@agent-ledger/core";
import { isForbiddenAddress } from "@agent-ledger/core";
import http from "node:http";
import https from "node:https";
import { isIP, type Socket } from "node:net";
import { bareHost, CallbackNotAllowedError, createGuardedLookup, type ResolveHost } from "@agent-ledger/runtime";
import type { DeliveryRequest } from "./buildDeliveryRequest.ts";

export interface PostOutcome {
  result: AttemptResult;
  /** Request start to the end of the response body (or to the failure). */
  responseMs: number;
  retryAfter: string | null;
  /** Human-readable failure (network error, timeout, refused address, non-2xx status + body snippet); null on 2xx. */
  error: string | null;
}

const SNIPPET_BYTES = 300;

/**
 * POSTs webhook requests: one keep-alive agent per scheme whose DNS lookup is SSRF-guarded in
 * production, a whole-attempt timeout, and NO redirect following (node:http never follows; a 3xx is
 * just a non-2xx status). IP-literal hosts never go through `lookup`, so they are checked up front,
 * and in production the connected socket's remote address is checked once more before anything is sent.
 */
export function createWebhookClient(options: { production: boolean; timeoutMs: number; resolve?: ResolveHost; maxSocketsPerHost?: number }) {
  const lookup = createGuardedLookup({ production: options.production, resolve: options.resolve });
  // Idle keep-alive sockets are dropped after 4 s, before a typical server's 5 s keep-alive timeout closes them under us.
  const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerHost ?? 256, lookup, timeout: 4_000 };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  function refuse(message: string, started: number): PostOutcome {
    return { result: { type: "network_error" }, responseMs: Math.round(performance.now() - started), retryAfter: null, error: message };
  }

  function post(callbackUrl: string, request: DeliveryRequest): Promise<PostOutcome> {
    const started = performance.now();
    let url: URL;
    try {
      url = new URL(callbackUrl);
    } catch {
      return Promise.resolve(refuse("invalid callback_url", started));
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return Promise.resolve(refuse("callback_url is not http(s)", started));
    if (options.production) {
      if (url.protocol !== "https:") return Promise.resolve(refuse("callback_forbidden: callback_url must use https in production", started));
      const host = bareHost(url.hostname);
      if (isIP(host) && isForbiddenAddress(host)) return Promise.resolve(refuse(`callback_forbidden: ${host} is not a public address`, started));
    }
    const transport = url.protocol === "https:" ? https : http;
    const body = Buffer.from(request.body);

    return new Promise<PostOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: Omit<PostOutcome, "responseMs">) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...outcome, responseMs: Math.round(performance.now() - started) });
      };
      let current: http.ClientRequest | null = null;
      const timer = setTimeout(() => {
        finish({ result: { type: "timeout" }, retryAfter: null, error: `timeout after ${options.timeoutMs} ms` });
        current?.destroy(new Error("timeout"));
      }, options.timeoutMs);

      const send = (retriedStaleSocket: boolean) => {
        const req = transport.request(url, {
          method: "POST",
          agent: url.protocol === "https:" ? httpsAgent : httpAgent,
          headers: { ...request.headers, "Content-Length": String(body.length) },
        });
        current = req;
        if (options.production) {
          const check = (socket: Socket) => {
            const remote = socket.remoteAddress;
            if (remote && isForbiddenAddress(remote))
              socket.destroy(new CallbackNotAllowedError("callback_url_forbidden", `connected to a non-public address (${remote})`));
          };
          req.on("socket", (socket: Socket) => {
            if (socket.remoteAddress) check(socket);
            else socket.once("connect", () => check(socket));
          });
        }
        let responded = false;
        req.on("error", (error: NodeJS.ErrnoException) => {
          // A kept-alive socket the server closed just before we reused it: nothing was processed, send once more on a new one.
          if (!responded && !retriedStaleSocket && !settled && req.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE")) {
            send(true);
            return;
          }
          const prefix = error instanceof CallbackNotAllowedError ? "callback_forbidden: " : "";
          finish({
            result: { type: "network_error" },
            retryAfter: null,
            error: `${prefix}${error.code ? `${error.code} ` : ""}${error.message}`.slice(0, 500),
          });
        });
        req.on("response", (res) => {
          responded = true;
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on("data", (chunk: Buffer) => {
            if (!ok && kept < SNIPPET_BYTES) {
              chunks.push(chunk);
              kept += chunk.length;
            }
          });
          res.on("end", () => {
            const retryAfter = typeof res.headers["retry-after"] === "string" ? res.headers["retry-after"] : null;
            const snippet = ok ? "" : Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString("utf8").replace(/\s+/g, " ").trim();
            finish({ result: { type: "response", status }, retryAfter, error: ok ? null : `HTTP ${status}${snippet ? `: ${snippet}` : ""}` });
          });
          res.on("error", (error) => finish({ result: { type: "network_error" }, retryAfter: null, error: `response aborted: ${error.message}` }));
        });
        req.end(body);
      };
      send(false);
    });
  }

  return {
    post,
    close(): void {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

export type WebhookClient = ReturnType<typeof createWebhookClient>;
