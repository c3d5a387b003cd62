import { z } from "zod";
import { parsedBy } from "../routes/parsedBy.ts";
import { parseSearchQuery } from "../services/parseSearchQuery.ts";
import { searchJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";

/** `?q=`: 2–200 characters of plain text after trimming (400 `invalid_query`, services/parseSearchQuery.ts). */
export const SEARCH_QUERY = z.object({ q: parsedBy((q: string | undefined) => parseSearchQuery(q)) });

/** GET /api/search?q= — events, entities and labelled addresses (20 of each at most). */
export const search: RestHandler<z.output<typeof SEARCH_QUERY>> = async ({ query, services }) => ({ body: searchJson(await services.search(query.q)) });
