import { getArgumentValues, isObjectType, type GraphQLResolveInfo } from "../graphql/graphqlJs.ts";
import { decodeIdCursor } from "../services/cursor.ts";
import { entityKindOf } from "../services/entityKindOf.ts";
import { DETAIL_RECENT_EVENTS, GATEWAY_ID, isPlausibleEntityId } from "../services/getEntityDetail.ts";
import { loadEntitySummary } from "../services/loadEntitySummary.ts";
import type { EntityHead, EntityKind, EntityTotals, Page, TokenAmount, TrendPoint } from "../services/types.ts";
import { builder, type GraphqlContext } from "./builder.ts";
import { EntityRef, EventPageRef, type EntityShape } from "./refs.ts";
import {
  entityTokenSummaryLoader,
  eventPageLoader,
  lastEventAtLoader,
  providerPage,
  totalsLoader,
  trendLoader,
  walletsLoader,
  windowStatsLoader,
  windowTokenStatsLoader,
} from "./loaders.ts";
import { pageSize } from "./pageArgs.ts";
import { ProviderPageRef } from "./Provider.ts";
import { selectedFields } from "./selectedFields.ts";
import { TokenAmountRef } from "./TokenAmount.ts";

const eventPageOf = (args: { first?: number | null; after?: string | null }) => ({
  limit: pageSize(args.first, DETAIL_RECENT_EVENTS),
  before: decodeIdCursor(args.after),
});
const providerPageOf = (args: { first?: number | null; after?: string | null }) => ({ limit: pageSize(args.first, 20), after: args.after ?? null });

// Totals and trend points carry their entity's id (and the point its day index) so that their per-token breakdowns
// load (one statement for every entity of the request) only when selected.
type TotalsShape = EntityTotals & { entityId: string };
type TrendPointShape = TrendPoint & { entityId: string; index: number };

const TotalsRef = builder.objectRef<TotalsShape>("EntityTotals").implement({
  description: "All-time payments (sent + received) and fees of an entity.",
  fields: (t) => ({
    txCount: t.exposeInt("txCount"),
    amountSumWei: t.expose("amountSumWei", { type: "Uint256" }),
    feeCount: t.exposeInt("feeCount"),
    feeSumWei: t.expose("feeSumWei", { type: "Uint256" }),
    byToken: t.field({
      type: [TokenAmountRef],
      description: "txCount / amountSumWei per token, largest amount first (they add up to txCount / amountSumWei).",
      resolve: (x, _a, ctx) =>
        entityTokenSummaryLoader(ctx)
          .load(x.entityId)
          .then((s) => s.byToken),
    }),
    feesByToken: t.field({
      type: [TokenAmountRef],
      description: "feeCount / feeSumWei per token (txCount = fees), largest amount first.",
      resolve: (x, _a, ctx) =>
        entityTokenSummaryLoader(ctx)
          .load(x.entityId)
          .then((s) => s.feesByToken),
    }),
  }),
});

const TrendPointRef = builder.objectRef<TrendPointShape>("TrendPoint").implement({
  description: "Payments (sent + received) of one UTC day.",
  fields: (t) => ({
    day: t.exposeString("day", { description: "YYYY-MM-DD (UTC)." }),
    txCount: t.exposeInt("txCount"),
    amountSumWei: t.expose("amountSumWei", { type: "Uint256" }),
    byToken: t.field({
      type: [TokenAmountRef],
      description: "txCount / amountSumWei of the day per token, largest amount first.",
      resolve: (p, _a, ctx) =>
        entityTokenSummaryLoader(ctx)
          .load(p.entityId)
          .then((s) => s.trend[p.index] ?? []),
    }),
  }),
});

const tokenStat = (e: EntityShape, key: "byToken24h" | "byToken7d", ctx: GraphqlContext): TokenAmount[] | Promise<TokenAmount[]> =>
  e[key] ??
  windowTokenStatsLoader(ctx)
    .load(e.id)
    .then((s) => s[key]);

const stat = <K extends "txCount24h" | "txCount7d" | "amountSumWei24h" | "amountSumWei7d">(e: EntityShape, key: K, ctx: GraphqlContext) =>
  e[key] !== undefined
    ? e[key]
    : windowStatsLoader(ctx)
        .load(e.id)
        .then((s) => s[key]);

EntityRef.implement({
  description: "A watched entity: a curated service (id ends -mpp) or an agent. Counts and sums are payments sent + received.",
  fields: (t) => ({
    id: t.exposeID("id"),
    label: t.exposeString("label"),
    category: t.exposeString("category"),
    kind: t.exposeString("kind", { description: "service | agent" }),
    active: t.exposeBoolean("active"),
    wallets: t.stringList({
      description: "Wallet addresses (lowercase).",
      // Lists and search hits come with their wallets: loaded only for a bare head (as REST does).
      resolve: (e, _a, ctx) => e.wallets ?? walletsLoader(ctx).load(e.id),
    }),
    txCount24h: t.int({ resolve: (e, _a, ctx) => stat(e, "txCount24h", ctx) }),
    amountSumWei24h: t.field({ type: "Uint256", resolve: (e, _a, ctx) => stat(e, "amountSumWei24h", ctx) }),
    txCount7d: t.int({ resolve: (e, _a, ctx) => stat(e, "txCount7d", ctx) }),
    amountSumWei7d: t.field({ type: "Uint256", resolve: (e, _a, ctx) => stat(e, "amountSumWei7d", ctx) }),
    byToken24h: t.field({
      type: [TokenAmountRef],
      description: "txCount24h / amountSumWei24h per token, largest amount first.",
      resolve: (e, _a, ctx) => tokenStat(e, "byToken24h", ctx),
    }),
    byToken7d: t.field({
      type: [TokenAmountRef],
      description: "txCount7d / amountSumWei7d per token, largest amount first.",
      resolve: (e, _a, ctx) => tokenStat(e, "byToken7d", ctx),
    }),
    lastEventAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "ts of the newest row (highest id, any kind), or null.",
      resolve: (e, _a, ctx) => (e.lastEventAt !== undefined ? e.lastEventAt : lastEventAtLoader(ctx).load(e.id)),
    }),
    totals: t.field({
      type: TotalsRef,
      resolve: (e, _a, ctx) =>
        e.totals
          ? { ...e.totals, entityId: e.id }
          : totalsLoader(ctx)
              .load(e.id)
              .then((x) => ({ ...x, entityId: e.id })),
    }),
    trend: t.field({
      type: [TrendPointRef],
      description: "The 30 UTC days ending today, oldest first, zero-filled.",
      resolve: async (e, _a, ctx) => (e.trend ?? (await trendLoader(ctx).load(e.id))).map((p, index) => ({ ...p, entityId: e.id, index })),
    }),
    recentEvents: t.field({
      type: EventPageRef,
      description: "Rows of this entity, newest first (50 by default, at most 100 per page).",
      args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
      // One statement per distinct page for all entities of the request (a detail query may have started it already).
      resolve: (e, args, ctx) => eventPageLoader(ctx, eventPageOf(args)).load(e.id),
    }),
    providers: t.field({
      type: ProviderPageRef,
      nullable: true,
      description: "Only for tempo-gateway-mpp: its providers (all time), by amount descending; null otherwise.",
      args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
      resolve: (e, args, ctx) => (e.id === GATEWAY_ID ? providerPage(ctx, providerPageOf(args)) : null),
    }),
  }),
});

export const EntityPageRef = builder.objectRef<Page<EntityShape>>("EntityPage").implement({
  fields: (t) => ({
    items: t.expose("items", { type: [EntityRef] }),
    nextCursor: t.exposeString("nextCursor", { nullable: true }),
  }),
});

const listField = (kind: EntityKind) =>
  builder.queryField(kind === "service" ? "services" : "agents", (t) =>
    t.field({
      type: [EntityRef],
      description: `Every ${kind === "service" ? "curated service (id ends -mpp)" : "watched non-curated entity"}, by 7-day amount descending then id.`,
      resolve: (_root, _args, ctx) => ctx.services.listEntities(kind),
    }),
  );

const oneField = (kind: EntityKind) =>
  builder.queryField(kind, (t) =>
    t.field({
      type: EntityRef,
      nullable: true,
      description: `${kind === "agent" ? "An" : "A"} ${kind} by id (null when unknown or not ${kind === "agent" ? "an" : "a"} ${kind}).`,
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx, info) => findDetail(kind, String(args.id), ctx, info),
    }),
  );

/**
 * One entity as REST's detail reads it: head, wallets, totals and trend in one statement (loadEntitySummary), and —
 * looking ahead at the selection — its pages of rows and the gateway's providers started at the same time instead
 * of after the head; the fields then take what was started. Null when unknown or of the other kind.
 */
async function findDetail(kind: EntityKind, id: string, ctx: GraphqlContext, info: GraphQLResolveInfo): Promise<EntityShape | null> {
  if (!isPlausibleEntityId(id) || entityKindOf(id) !== kind) return null;
  const entityType = info.schema.getType("Entity");
  const defs = entityType && isObjectType(entityType) ? entityType.getFields() : {};
  const started: Promise<unknown>[] = [];
  const start = (field: string, begin: (args: Record<string, unknown>) => Promise<unknown>) => {
    const def = defs[field];
    if (!def) return;
    for (const node of selectedFields(info, field)) {
      try {
        started.push(begin(getArgumentValues(def, node, info.variableValues)));
      } catch {
        // invalid arguments: the field itself reports them
      }
    }
  };
  start("recentEvents", (args) => eventPageLoader(ctx, eventPageOf(args)).load(id));
  // totals / trend per token: their statement starts with the others (as REST's detail), when one is selected
  const tokenFields = [...selectedFields(info, "totals"), ...selectedFields(info, "trend")];
  const sub = (name: string) => selectedFields({ fieldNodes: tokenFields, fragments: info.fragments }, name).length > 0;
  if (sub("byToken") || sub("feesByToken")) started.push(entityTokenSummaryLoader(ctx).load(id));
  if (id === GATEWAY_ID) start("providers", (args) => providerPage(ctx, providerPageOf(args)));
  for (const p of started) p.catch(() => {}); // awaited (and reported) by their fields, if the entity exists
  return loadEntitySummary(ctx.services.context, id);
}

listField("service");
listField("agent");
oneField("service");
oneField("agent");
