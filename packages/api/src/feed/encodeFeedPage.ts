import type { EventRecord } from "../services/types.ts";
import { encodeFeedFrame } from "./encodeFeedFrame.ts";

// Keyed by the page array the hub hands to every subscriber: built by the first subscriber that asks, shared by all.
const pages = new WeakMap<readonly EventRecord[], Buffer>();

/**
 * A run of rows as one Buffer: exactly the concatenation of each row's `encodeFeedFrame`, in order. A subscriber that
 * takes a whole hub page writes this with one `write` (one chunk, no per-subscriber JSON or encoding work).
 * Invariant: byte-identical to writing the rows' frames one by one.
 */
export function encodeFeedPage(rows: readonly EventRecord[]): Buffer {
  let page = pages.get(rows);
  if (page === undefined) {
    page = rows.length === 1 ? encodeFeedFrame(rows[0]!) : Buffer.concat(rows.map(encodeFeedFrame));
    pages.set(rows, page);
  }
  return page;
}
