// The explorer's reads (docs/web.md), public like the rest: activity time series, the previous window's headline
// figures (Dashboard.previous) and one gateway provider by key. Kept apart from Dashboard.ts / Provider.ts.
import { ApiError } from "../errors.ts";
import type { ActivitySeries, SeriesPoint } from "../services/getActivitySeries.ts";
import type { WindowFigures } from "../services/getPreviousWindow.ts";
import type { Dashboard } from "../services/types.ts";
import { builder } from "./builder.ts";
import { DashboardRef } from "./Dashboard.ts";
import { ProviderRef } from "./Provider.ts";
import { TokenAmountRef } from "./TokenAmount.ts";

const SeriesBucketRef = builder.enumType("SeriesBucket", {
  description: "hour: UTC hours (windows up to 30d). day: UTC days.",
  values: ["hour", "day"] as const,
});

const SeriesPointRef = builder.objectRef<SeriesPoint>("SeriesPoint").implement({
  description: "Payments in one bucket.",
  fields: (t) => ({
    t: t.expose("t", { type: "DateTime", description: "Start of the bucket (UTC)." }),
    txCount: t.exposeInt("txCount"),
    amountSumWei: t.expose("amountSumWei", { type: "Uint256" }),
    byToken: t.expose("byToken", { type: [TokenAmountRef], description: "txCount / amountSumWei per token in this bucket, largest amount first." }),
  }),
});

const ActivitySeriesRef = builder.objectRef<ActivitySeries>("ActivitySeries").implement({
  description: "Payments count and volume per bucket over a window, from the rollup tables.",
  fields: (t) => ({
    window: t.exposeString("window"),
    bucket: t.expose("bucket", { type: SeriesBucketRef }),
    from: t.expose("from", { type: "DateTime", description: "Start of the first bucket." }),
    to: t.expose("to", { type: "DateTime", description: "End of the last bucket (exclusive)." }),
    points: t.expose("points", { type: [SeriesPointRef], description: "Every bucket from `from` to `to`, oldest first, zero-filled." }),
  }),
});

const WindowFiguresRef = builder.objectRef<WindowFigures>("WindowFigures").implement({
  description: "Headline figures of a span of buckets (same definitions as Dashboard's).",
  fields: (t) => ({
    from: t.expose("from", { type: "DateTime" }),
    to: t.expose("to", { type: "DateTime", description: "Exclusive." }),
    txCount: t.exposeInt("txCount"),
    amountSumWei: t.expose("amountSumWei", { type: "Uint256" }),
    byToken: t.expose("byToken", {
      type: [TokenAmountRef],
      description: "txCount / amountSumWei per token, largest amount first (they add up to txCount / amountSumWei).",
    }),
    agentsActive: t.exposeInt("agentsActive"),
    providersDetected: t.exposeInt("providersDetected"),
  }),
});

builder.objectField(DashboardRef, "previous", (t) =>
  t.field({
    type: WindowFiguresRef,
    nullable: true,
    description: "The window just before this one (same length, ending where it starts), to show the change; null for `all`.",
    resolve: (d: Dashboard, _a, ctx) => ctx.services.getPreviousWindow(d.window),
  }),
);

builder.queryField("activitySeries", (t) =>
  t.field({
    type: ActivitySeriesRef,
    description:
      "Payments count and volume per hour or day over a window (24h | 7d | 30d | all), from the rollups: the whole ledger (a payment between two watched entities counts once), one entity (sent + received) or one gateway provider. Default bucket: hour for 24h/7d, day beyond; hour with `all` is an `invalid_window` error.",
    args: {
      window: t.arg.string({ required: true, defaultValue: "24h" }),
      bucket: t.arg({ type: SeriesBucketRef, required: false }),
      entityId: t.arg.id({ required: false, description: "A watched agent or service (unknown: `not_found`)." }),
      providerKey: t.arg.string({ required: false, description: "A provider address or memo fingerprint." }),
    },
    resolve: async (_root, args, ctx) => {
      const entityId = args.entityId == null ? null : String(args.entityId);
      if (entityId !== null && (await ctx.services.loadEntities([entityId]))[0] == null) {
        throw new ApiError("not_found", `no entity with id ${entityId}`);
      }
      return ctx.services.getActivitySeries(args.window, args.bucket ?? null, { entityId, providerKey: args.providerKey ?? null });
    },
  }),
);

builder.queryField("provider", (t) =>
  t.field({
    type: ProviderRef,
    nullable: true,
    description:
      "One gateway provider by address (Pattern A, or the address a Pattern B fingerprint label names) or memo fingerprint, all time; null when unknown.",
    args: { key: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.getProvider(args.key),
  }),
);
