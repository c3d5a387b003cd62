import { loadEventsByIds } from "./loadEventsByIds.ts";
import { loadEventsByTxHash } from "./loadEventsByTxHash.ts";
import { loadSessions } from "./loadSessions.ts";
import { parseEventId } from "./parseEventId.ts";
import type { EventDetail, ServiceContext } from "./types.ts";

/** One row with its provenance, the other rows of the same transaction and, for a session row, its channel's life; null when unknown. */
export async function getEvent(ctx: ServiceContext, id: string): Promise<EventDetail | null> {
  const [event] = await loadEventsByIds(ctx, [parseEventId(id)]);
  if (!event) return null;
  const [[sameTx], [session]] = await Promise.all([
    loadEventsByTxHash(ctx, [event.txHash]),
    event.channelId ? loadSessions(ctx, [event.channelId]) : Promise.resolve([null]),
  ]);
  return { event, relatedEvents: (sameTx ?? []).filter((e) => e.id !== event.id), session: session ?? null };
}
