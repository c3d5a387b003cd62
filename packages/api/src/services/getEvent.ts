import { loadEventsByIds } from "./loadEventsByIds.ts";
import { loadEventsByTxHash } from "./loadEventsByTxHash.ts";
import { parseEventId } from "./parseEventId.ts";
import type { EventDetail, ServiceContext } from "./types.ts";

/** One row with its provenance and the other rows of the same transaction; null when unknown. */
export async function getEvent(ctx: ServiceContext, id: string): Promise<EventDetail | null> {
  const [event] = await loadEventsByIds(ctx, [parseEventId(id)]);
  if (!event) return null;
  const [sameTx] = await loadEventsByTxHash(ctx, [event.txHash]);
  return { event, relatedEvents: (sameTx ?? []).filter((e) => e.id !== event.id) };
}
