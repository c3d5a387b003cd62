import type { Page, ProviderDetail, ProviderSeen, ProviderSummary } from "../services/types.ts";
import { builder, type GraphqlContext } from "./builder.ts";
import { providerSeenLoader } from "./loaders.ts";
import { pageSize } from "./pageArgs.ts";
import { TokenAmountRef } from "./TokenAmount.ts";

export type ProviderShape = ProviderSummary & Partial<ProviderSeen>;

const ProviderPatternRef = builder.enumType("ProviderPattern", {
  description: "address: Pattern A (trusted escrow Settlement names the provider). fingerprint: Pattern B (gateway memo fingerprint).",
  values: ["address", "fingerprint"] as const,
});

// Synchronous when the provider comes with its times (a page of providers): no promise per field.
const seen = (p: ProviderShape, key: keyof ProviderSeen, ctx: GraphqlContext): Date | Promise<Date> =>
  p[key] ??
  providerSeenLoader(ctx)
    .load(p.key)
    .then((s) => {
      if (!s) throw new Error(`provider ${p.key} has no hourly rollup`);
      return s[key];
    });

export const ProviderRef = builder.objectRef<ProviderShape>("Provider").implement({
  description: "A provider reached through the MPP gateway. txCount/amountSumWei cover the enclosing query's window (all time outside the dashboard).",
  fields: (t) => ({
    key: t.exposeString("key", { description: "The provider address (pattern address) or memo fingerprint (pattern fingerprint)." }),
    pattern: t.expose("pattern", { type: ProviderPatternRef }),
    address: t.exposeString("address", { nullable: true }),
    fingerprint: t.exposeString("fingerprint", { nullable: true }),
    label: t.exposeString("label", { nullable: true }),
    txCount: t.exposeInt("txCount"),
    amountSumWei: t.expose("amountSumWei", { type: "Uint256" }),
    byToken: t.expose("byToken", { type: [TokenAmountRef], description: "txCount / amountSumWei per token over the same span, largest amount first." }),
    firstSeenAt: t.field({
      type: "DateTime",
      description: "Start of the first UTC hour with a payment.",
      resolve: (p, _a, ctx) => seen(p, "firstSeenAt", ctx),
    }),
    lastSeenAt: t.field({ type: "DateTime", description: "Start of the last UTC hour with a payment.", resolve: (p, _a, ctx) => seen(p, "lastSeenAt", ctx) }),
  }),
});

export const ProviderPageRef = builder.objectRef<Page<ProviderDetail>>("ProviderPage").implement({
  fields: (t) => ({
    items: t.expose("items", { type: [ProviderRef] }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
  }),
});

builder.queryField("providers", (t) =>
  t.field({
    type: ProviderPageRef,
    description: "Every gateway provider (all time) by amount descending, then count, then key (20 per page by default, at most 100).",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => ctx.services.listProviders({ limit: pageSize(args.first, 20), after: args.after ?? null }),
  }),
);
