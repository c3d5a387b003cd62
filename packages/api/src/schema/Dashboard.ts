import { getDashboard as computeDashboard } from "../services/getDashboard.ts";
import { parseWindow } from "../services/resolveWindow.ts";
import type { Dashboard, TopEntity } from "../services/types.ts";
import { builder } from "./builder.ts";
import { EntityRef, EventRef } from "./refs.ts";
import { entityLoader } from "./loaders.ts";
import { ProviderRef } from "./Provider.ts";
import { TokenAmountRef } from "./TokenAmount.ts";

const TopEntityRef = builder.objectRef<TopEntity>("TopEntity").implement({
  description: "A service or agent ranked by payment amount (sent + received) in the window.",
  fields: (t) => ({
    id: t.exposeID("id"),
    label: t.exposeString("label"),
    category: t.exposeString("category"),
    txCount: t.exposeInt("txCount"),
    amountSumWei: t.expose("amountSumWei", { type: "Uint256" }),
    byToken: t.expose("byToken", { type: [TokenAmountRef], description: "txCount / amountSumWei per token in the window, largest amount first." }),
    entity: t.field({ type: EntityRef, nullable: true, resolve: (x, _a, ctx) => entityLoader(ctx).load(x.id) }),
  }),
});

export const DashboardRef = builder.objectRef<Dashboard>("Dashboard").implement({
  description: "Aggregates of one window, from the rollup tables.",
  fields: (t) => ({
    window: t.exposeString("window"),
    windowHours: t.exposeInt("windowHours"),
    txCount: t.exposeInt("txCount", { description: "Payments (a payment between two watched entities counts once; fees excluded)." }),
    agentsActive: t.exposeInt("agentsActive", { description: "Distinct agents (not -mpp) with any activity in the window." }),
    amountSumWei: t.expose("amountSumWei", { type: "Uint256" }),
    byToken: t.expose("byToken", {
      type: [TokenAmountRef],
      description: "txCount / amountSumWei per token, largest amount first (they add up to txCount / amountSumWei).",
    }),
    providersDetected: t.exposeInt("providersDetected"),
    topServices: t.expose("topServices", { type: [TopEntityRef] }),
    topAgents: t.expose("topAgents", { type: [TopEntityRef] }),
    topProviders: t.expose("topProviders", { type: [ProviderRef] }),
    recentEvents: t.expose("recentEvents", { type: [EventRef], description: "The 20 newest rows." }),
  }),
});

builder.queryField("dashboard", (t) =>
  t.field({
    type: DashboardRef,
    description: "The dashboard of a window: 24h | 7d | 30d | all (anything else is an `invalid_window` error).",
    args: { window: t.arg.string({ required: true, defaultValue: "24h" }) },
    resolve: (_root, args, ctx) =>
      ctx.freshDashboard ? computeDashboard(ctx.services.context, parseWindow(args.window)) : ctx.services.getDashboard(args.window),
  }),
);
