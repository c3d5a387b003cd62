import type { IncomingMessage, ServerResponse } from "node:http";
import { sendApiError, sendError } from "../http/sendError.ts";
import { ApiError } from "../errors.ts";
import type { EventRecord } from "../services/types.ts";
import type { FeedCore } from "./feedCore.ts";
import { encodeFeedFrame } from "./encodeFeedFrame.ts";
import { encodeFeedPage } from "./encodeFeedPage.ts";
import { responseConnection } from "./feedConnection.ts";
import { parseMinAmount, parseResumeId } from "./parseFeedParams.ts";
import { FEED_DISABLED_MESSAGE, type FeedCloseReason, type FeedOptions } from "./types.ts";

export const FEED_PREFLIGHT_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, OPTIONS",
  "access-control-allow-headers": "last-event-id, cache-control, accept",
  "access-control-max-age": "86400",
};

/**
 * A hub page is written as one shared frame only up to this many rows: a subscriber's socket buffer then exceeds its
 * high-water mark by at most one such page; larger pages (catch-up bursts) go row by row, paced by the socket.
 */
export const MAX_SHARED_PAGE_ROWS = 64;

/**
 * The stream is live: `event: ready` whose `id` is the resume position (everything up to it was delivered or did not
 * match). It moves the client's last event id, so an EventSource that reconnects before its first row misses nothing.
 */
export function formatReadyEvent(position: bigint): string {
  return `id: ${position}\nevent: ready\ndata: ${JSON.stringify({ last_event_id: position.toString() })}\n\n`;
}

/**
 * `GET /api/feed`: server-sent events. `retry:` first; with `Last-Event-ID` (header, or `?last_event_id=`) the rows
 * after it are replayed; then `event: ready` (id = the resume position) and live rows (`event: event`, id = row id).
 * `: ping` comments keep idle connections open. Filters: `agent_id`, `min_amount_wei`.
 */
export function createSseHandler(core: FeedCore | null, options: FeedOptions) {
  return async function handleFeed(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!core) return sendError(res, "feed_disabled", FEED_DISABLED_MESSAGE);
    if (req.method === "OPTIONS") {
      res.writeHead(204, FEED_PREFLIGHT_HEADERS);
      return void res.end();
    }
    if (req.method !== "GET") return sendError(res, "method_not_allowed", `${req.method} is not allowed on ${url.pathname}`, { allow: "GET, OPTIONS" });

    let afterId: bigint | null;
    let filter;
    try {
      const header = req.headers["last-event-id"];
      afterId = parseResumeId(typeof header === "string" && header !== "" ? header.trim() : url.searchParams.get("last_event_id"), "invalid_last_event_id");
      const minAmountWei = parseMinAmount(url.searchParams.get("min_amount_wei"));
      filter = await core.resolveFilter(url.searchParams.get("agent_id"), minAmountWei);
      await core.whenReady();
    } catch (error) {
      if (error instanceof ApiError) return sendApiError(res, error);
      throw error;
    }
    if (res.destroyed || req.socket.destroyed) return;

    req.socket.setNoDelay(true);
    req.socket.setKeepAlive(true);
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "access-control-allow-origin": "*",
      "x-accel-buffering": "no",
    });
    res.write(`retry: ${options.retryMs}\n\n`);

    const connection = responseConnection(res);
    let heartbeat: NodeJS.Timeout | undefined;
    const closed = new Promise<FeedCloseReason>((resolve) => {
      const cursor = core.openCursor({
        kind: "sse",
        filter,
        afterId,
        connection,
        offer(row) {
          if (!connection.hasRoom()) return false;
          res.write(encodeFeedFrame(row));
          return true;
        },
        // Every unfiltered live subscriber gets the same bytes for a page: one shared Buffer, one write each.
        offerPage(rows) {
          if (rows.length > MAX_SHARED_PAGE_ROWS || !connection.hasRoom()) return false;
          res.write(encodeFeedPage(rows));
          return true;
        },
        onLive: (position) => void res.write(formatReadyEvent(position)),
        onClose(reason) {
          clearInterval(heartbeat);
          if (reason === "server_stop") res.end();
          else if (reason !== "client_closed") res.destroy(); // overflow (already dropped) or a failed replay
          resolve(reason);
        },
      });
      heartbeat = setInterval(() => {
        if (connection.hasRoom()) res.write(": ping\n\n");
      }, options.heartbeatMs);
      heartbeat.unref();
      res.once("close", () => cursor.close("client_closed"));
      if (res.destroyed) cursor.close("client_closed");
    });
    await closed;
  };
}
