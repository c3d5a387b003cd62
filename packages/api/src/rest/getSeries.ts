import { z } from "zod";
import { ApiError } from "../errors.ts";
import { parsedBy } from "../routes/parsedBy.ts";
import { tokenAmountJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";

/**
 * The series query. `bucket` is checked first (400 `invalid_window`), then entity and provider together (400
 * `invalid_query`). The window and the provider key's shape are checked by the service (shared with GraphQL
 * `activitySeries`), after the entity is looked up (404 first), as they were before the route declared its query.
 */
export const SERIES_QUERY = z
  .object({
    bucket: parsedBy((bucket: string | undefined) => {
      if (bucket !== undefined && bucket !== "hour" && bucket !== "day") throw new ApiError("invalid_window", "bucket must be hour or day");
      return bucket ?? null;
    }),
    w: z.string().default("24h"),
    entity: z.string().optional(),
    provider: z.string().optional(),
  })
  .superRefine((q, ctx) => {
    if (q.entity !== undefined && q.provider !== undefined)
      ctx.addIssue({ code: "custom", message: "give entity or provider, not both", params: { code: "invalid_query" } });
  });

/**
 * GET /api/series?w=24h|7d|30d|all&bucket=hour|day&entity=<id>&provider=<key> — payments count and volume per
 * bucket from the rollups (GraphQL `activitySeries`): the whole ledger, one entity or one provider.
 */
export const getSeries: RestHandler<z.output<typeof SERIES_QUERY>> = async ({ query, services }) => {
  const entityId = query.entity ?? null;
  if (entityId !== null && (await services.loadEntities([entityId]))[0] == null) throw new ApiError("not_found", `no entity with id ${entityId}`);
  const s = await services.getActivitySeries(query.w, query.bucket, { entityId, providerKey: query.provider ?? null });
  return {
    body: {
      window: s.window,
      bucket: s.bucket,
      from: s.from.toISOString(),
      to: s.to.toISOString(),
      points: s.points.map((p) => ({
        t: p.t.toISOString(),
        txCount: p.txCount,
        amountSumWei: p.amountSumWei.toString(),
        byToken: p.byToken.map(tokenAmountJson),
      })),
    },
  };
};
