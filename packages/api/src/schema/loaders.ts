import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import type { EntityHead, EventRecord, ProviderSeen, WindowStats } from "../services/types.ts";
import type { GraphqlContext } from "./builder.ts";

// Per-request DataLoaders shared by several fields (one instance per context object, i.e. per request).
// Single-field relations use the Pothos dataloader plugin (`t.loadable`) next to their field instead.

export const entityLoader = createContextCache(
  (ctx: GraphqlContext) => new DataLoader<string, EntityHead | null>((ids) => ctx.services.loadEntities(ids)),
);

export const walletsLoader = createContextCache(
  (ctx: GraphqlContext) => new DataLoader<string, string[]>((ids) => ctx.services.loadWallets(ids)),
);

export const lastEventAtLoader = createContextCache(
  (ctx: GraphqlContext) => new DataLoader<string, Date | null>((ids) => ctx.services.loadLastEventAt(ids)),
);

export const windowStatsLoader = createContextCache(
  (ctx: GraphqlContext) => new DataLoader<string, WindowStats>((ids) => ctx.services.loadWindowStats(ids)),
);

export const eventLoader = createContextCache(
  (ctx: GraphqlContext) => new DataLoader<bigint, EventRecord | null, string>((ids) => ctx.services.loadEventsByIds(ids), { cacheKeyFn: String }),
);

export const txEventsLoader = createContextCache(
  (ctx: GraphqlContext) => new DataLoader<string, EventRecord[]>((hashes) => ctx.services.loadEventsByTxHash(hashes)),
);

export const providerSeenLoader = createContextCache(
  (ctx: GraphqlContext) => new DataLoader<string, ProviderSeen | null>((keys) => ctx.services.loadProviderSeen(keys)),
);
