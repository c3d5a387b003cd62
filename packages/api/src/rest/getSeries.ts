import { ApiError } from "../errors.ts";
import { tokenAmountJson } from "./serializers.ts";
import type { RestHandler } from "./types.ts";

/**
 * GET /api/series?w=24h|7d|30d|all&bucket=hour|day&entity=<id>&provider=<key> — payments count and volume per
 * bucket from the rollups (GraphQL `activitySeries`): the whole ledger, one entity or one provider.
 */
export const getSeries: RestHandler = async ({ query, services }) => {
  const bucket = query.get("bucket");
  if (bucket !== null && bucket !== "hour" && bucket !== "day") throw new ApiError("invalid_window", "bucket must be hour or day");
  const entityId = query.get("entity");
  if (entityId !== null && query.get("provider") !== null) throw new ApiError("invalid_query", "give entity or provider, not both");
  if (entityId !== null && (await services.loadEntities([entityId]))[0] == null) throw new ApiError("not_found", `no entity with id ${entityId}`);
  const s = await services.getActivitySeries(query.get("w") ?? "24h", bucket, { entityId, providerKey: query.get("provider") });
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
