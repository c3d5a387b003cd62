import { eventRowJson } from "../rest/serializers.ts";
import type { EventRecord } from "../services/types.ts";

// The hub hands the same row objects (and the same page array) to every subscriber, so each row is serialized once
// per process, not once per subscriber: the frame is cached on the row object and dropped with it.
const frames = new WeakMap<EventRecord, Buffer>();

/**
 * One row as a server-sent event, as bytes: `id: <row id>`, `event: event`, `data: <the snake_case Event row>`.
 * The same Buffer for every call with the same row object (subscribers write it without copying or re-encoding).
 * Invariant: the bytes are the UTF-8 of the SSE text of that row; a row's JSON has no raw newline (JSON.stringify
 * escapes them), so `data:` is one line.
 */
export function encodeFeedFrame(row: EventRecord): Buffer {
  let frame = frames.get(row);
  if (frame === undefined) {
    frame = Buffer.from(`id: ${row.id}\nevent: event\ndata: ${JSON.stringify(eventRowJson(row))}\n\n`, "utf8");
    frames.set(row, frame);
  }
  return frame;
}
