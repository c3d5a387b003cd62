import { searchJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";

/** GET /api/search?q= — events, entities and labelled addresses (20 of each at most). */
export const search: RestHandler = async ({ query, services }) => ({ body: searchJson(await services.search(query.get("q"))) });
