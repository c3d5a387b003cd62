import { parseSearchQuery } from "./parseSearchQuery.ts";
import { searchAddresses } from "./searchAddresses.ts";
import { searchEntities } from "./searchEntities.ts";
import { searchEvents } from "./searchEvents.ts";
import type { SearchResult, ServiceContext } from "./types.ts";

export const SEARCH_PAGE_SIZE = 20;

/** Unified search: first page (20) of events, entities and labelled addresses matching `q`. */
export async function search(ctx: ServiceContext, rawQuery: string | null | undefined): Promise<SearchResult> {
  const q = parseSearchQuery(rawQuery);
  const page = { limit: SEARCH_PAGE_SIZE, after: null };
  const [events, entities, addresses] = await Promise.all([searchEvents(ctx, q, page), searchEntities(ctx, q, page), searchAddresses(ctx, q, page)]);
  return { q, events, entities, addresses };
}
