// How the feed benchmark (bench/feedBench.ts) reads what its raw-TCP subscribers received: the HTTP/1.1 response
// (head, then `Transfer-Encoding: chunked` framing, or the raw body without it), the SSE messages in it, and which of
// them carry a ledger row. Pure functions over the received bytes, tested against the API's own frame encoders in
// test/bench.feedFrames.test.ts: if the feed's frames change, that test fails before a benchmark run reports nothing.

/** One SSE message: its `event` type ("message" when absent), `id`, `data` (lines joined by \n, UTF-8), and the arrival
 * time of the read that completed it. */
export interface SseMessage {
  type: string;
  id: string | null;
  data: string;
  at: number;
}

/**
 * The SSE messages of one HTTP response received over `readEnds.length` socket reads: read i ended at byte
 * `readEnds[i]` of `bytes` and arrived at `readAts[i]`. Messages still incomplete at the end are left out.
 */
export function decodeSseResponse(bytes: Buffer, readEnds: readonly number[], readAts: readonly number[]): SseMessage[] {
  // 1. The response body as latin1 text pieces with the arrival time of their read (latin1: one char per byte, so a
  //    multi-byte UTF-8 character split between reads or chunks is decoded whole at the end).
  const pieces: { at: number; text: string }[] = [];
  let state: "head" | "size" | "data" | "crlf" | "raw" | "done" = "head";
  let line = "";
  let remaining = 0;
  const all = bytes.toString("latin1");
  for (let r = 0; r < readEnds.length; r++) {
    const at = readAts[r]!;
    const text = all.slice(r === 0 ? 0 : readEnds[r - 1], readEnds[r]);
    let i = 0;
    while (i < text.length && state !== "done") {
      if (state === "data" || state === "raw") {
        const n = state === "raw" ? text.length - i : Math.min(remaining, text.length - i);
        pieces.push({ at, text: text.slice(i, i + n) });
        i += n;
        remaining -= n;
        if (state === "data" && remaining === 0) state = "crlf";
        continue;
      }
      const c = text[i++]!;
      if (state === "head") {
        line += c;
        if (line.endsWith("\r\n\r\n")) {
          state = /\r\ntransfer-encoding: chunked\r\n/i.test(line) ? "size" : "raw";
          line = "";
        }
      } else if (c === "\n") {
        if (state === "size") {
          remaining = parseInt(line, 16); // chunk extensions (";…") are ignored by parseInt
          state = remaining === 0 ? "done" : "data";
        } else state = "size"; // the CRLF after a chunk's data
        line = "";
      } else if (c !== "\r") line += c;
    }
  }
  // 2. The SSE stream (lines ending in \n; a blank line ends a message; `:` lines are comments).
  const out: SseMessage[] = [];
  let buffer = "";
  let data: string[] = [];
  let type = "message";
  let id: string | null = null;
  const value = (l: string, field: string) => l.slice(l[field.length + 1] === " " ? field.length + 2 : field.length + 1);
  for (const { at, text } of pieces) {
    buffer += text;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const l = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (l === "") {
        if (data.length) out.push({ type, id, data: Buffer.from(data.join("\n"), "latin1").toString("utf8"), at });
        data = [];
        type = "message";
        id = null;
      } else if (l.startsWith("data:")) data.push(value(l, "data"));
      else if (l.startsWith("event:")) type = value(l, "event");
      else if (l.startsWith("id:")) id = value(l, "id");
    }
  }
  return out;
}

/**
 * The ledger row id a message carries, else null: the feed sends each row as `event: event` with `id: <row id>` and
 * the row as JSON (`encodeFeedFrame`); the `ready` event (`{"last_event_id": …}`), `retry:` and `: ping` are not rows.
 */
export function rowIdOfMessage(message: SseMessage): string | null {
  if (message.type !== "event") return null;
  let row: unknown;
  try {
    row = JSON.parse(message.data);
  } catch {
    return null;
  }
  if (row === null || typeof row !== "object" || !("id" in row) || !("tx_hash" in row)) return null;
  const id = String((row as { id: unknown }).id);
  return message.id === null || message.id === id ? id : null;
}

/** What the subscribers received, by message type (`ready 1000, event 0`): the first thing to read when no row was recognized. */
export function describeMessageTypes(messages: Iterable<SseMessage>): string {
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(m.type, (counts.get(m.type) ?? 0) + 1);
  return counts.size === 0 ? "no SSE message at all" : [...counts].map(([t, n]) => `${t} ${n.toLocaleString("en-US")}`).join(", ");
}
