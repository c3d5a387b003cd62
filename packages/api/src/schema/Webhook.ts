import type { GraphqlContext } from "./builder.ts";
import { builder } from "./builder.ts";
import type { WebhookService } from "../webhooks/createWebhookService.ts";
import { WebhookError } from "../webhooks/WebhookError.ts";
import { decodeDeliveryCursor } from "../webhooks/deliveryCursor.ts";
import { parseDeliveryLimit } from "../webhooks/parseDeliveryLimit.ts";
import { parseVerifyToken } from "../webhooks/parseVerifyToken.ts";

// Webhook subscriptions over GraphQL: the same service (and the same validation and error codes, in
// extensions.code) as the REST endpoints under /api/webhooks. Every field authenticates the caller.

type SubJson = Awaited<ReturnType<WebhookService["list"]>>["items"][number];
type DetailJson = Awaited<ReturnType<WebhookService["get"]>>;
type CreatedJson = Awaited<ReturnType<WebhookService["create"]>>;
type DeliveryJson = Awaited<ReturnType<WebhookService["listDeliveries"]>>["items"][number];
type DeliveryPageJson = Awaited<ReturnType<WebhookService["listDeliveries"]>>;

async function owner(ctx: GraphqlContext): Promise<{ service: WebhookService; userId: string }> {
  if (!ctx.webhooks || !ctx.principal) throw new WebhookError("not_configured", "webhooks are not available on this endpoint");
  const p = await ctx.principal();
  return { service: ctx.webhooks, userId: p!.userId };
}

const WebhookFiltersRef = builder.objectRef<Record<string, string>>("WebhookFilters").implement({
  description: "Filter v1: all present conditions ANDed.",
  fields: (t) => ({
    agentId: t.string({ resolve: (f) => f.agent_id! }),
    recipientAddress: t.string({ nullable: true, resolve: (f) => f.recipient_address ?? null }),
    routedToAddress: t.string({ nullable: true, resolve: (f) => f.routed_to_address ?? null }),
    minAmountWei: t.string({ nullable: true, description: "uint256 as a decimal string", resolve: (f) => f.min_amount_wei ?? null }),
    tokenAddress: t.string({ nullable: true, resolve: (f) => f.token_address ?? null }),
  }),
});

const DeliveryCountsRef = builder.objectRef<DetailJson["deliveries"]>("WebhookDeliveryCounts").implement({
  fields: (t) => ({
    pending: t.exposeInt("pending"),
    retrying: t.exposeInt("retrying"),
    succeeded: t.exposeInt("succeeded"),
    dead: t.exposeInt("dead"),
    total: t.exposeInt("total"),
  }),
});

const WebhookRef = builder.objectRef<SubJson & { deliveries?: DetailJson["deliveries"] }>("Webhook").implement({
  description: "A webhook subscription (never carries its secret).",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.exposeString("status", { description: "pending_verify | active | paused | disabled_by_failures" }),
    callbackUrl: t.string({ resolve: (s) => s.callback_url }),
    label: t.exposeString("label"),
    filters: t.field({ type: WebhookFiltersRef, resolve: (s) => s.filters }),
    verifyTokenExpiresAt: t.string({ resolve: (s) => s.verify_token_expires_at }),
    createdAt: t.string({ resolve: (s) => s.created_at }),
    updatedAt: t.string({ resolve: (s) => s.updated_at }),
    consecutiveFailures: t.int({ resolve: (s) => s.consecutive_failures }),
    statusReason: t.string({ nullable: true, resolve: (s) => s.status_reason }),
    deliveryCounts: t.field({
      type: DeliveryCountsRef,
      resolve: async (s, _args, ctx) => s.deliveries ?? (await (await owner(ctx)).service.get((await owner(ctx)).userId, s.id)).deliveries,
    }),
  }),
});

const WebhookCreatedRef = builder.objectRef<CreatedJson>("WebhookCreated").implement({
  description: "The new subscription with its signing secret and verify token: shown this once only.",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.exposeString("status"),
    callbackUrl: t.string({ resolve: (s) => s.callback_url }),
    label: t.exposeString("label"),
    filters: t.field({ type: WebhookFiltersRef, resolve: (s) => s.filters }),
    signingSecret: t.string({ resolve: (s) => s.signing_secret }),
    verifyToken: t.string({ resolve: (s) => s.verify_token }),
    verifyTokenExpiresAt: t.string({ resolve: (s) => s.verify_token_expires_at }),
    createdAt: t.string({ resolve: (s) => s.created_at }),
  }),
});

const HeaderRef = builder.objectRef<{ name: string; value: string }>("WebhookHeader").implement({
  fields: (t) => ({ name: t.exposeString("name"), value: t.exposeString("value") }),
});

const DeliveryRef = builder.objectRef<DeliveryJson>("WebhookDelivery").implement({
  fields: (t) => ({
    id: t.exposeID("id", { description: "Svc-Delivery: stable across retries" }),
    eventId: t.id({ nullable: true, resolve: (d) => (d.event_id === null ? null : String(d.event_id)) }),
    type: t.exposeString("type", { description: "event | verify | test" }),
    status: t.exposeString("status", { description: "pending | retrying | succeeded | dead" }),
    attempts: t.exposeInt("attempts"),
    lastHttpStatus: t.int({ nullable: true, resolve: (d) => d.last_http_status }),
    lastError: t.string({ nullable: true, resolve: (d) => d.last_error }),
    lastResponseMs: t.int({ nullable: true, resolve: (d) => d.last_response_ms }),
    lastAttemptAt: t.string({ nullable: true, resolve: (d) => d.last_attempt_at }),
    nextAttemptAt: t.string({ nullable: true, resolve: (d) => d.next_attempt_at }),
    createdAt: t.string({ resolve: (d) => d.created_at }),
    updatedAt: t.string({ resolve: (d) => d.updated_at }),
    completedAt: t.string({ nullable: true, resolve: (d) => d.completed_at }),
    lastRequestBody: t.string({
      nullable: true,
      description: "The exact JSON body the last attempt sent; null before the first attempt",
      resolve: (d) => d.last_request_body,
    }),
    lastRequestHeaders: t.field({
      type: [HeaderRef],
      nullable: true,
      description: "The headers the last attempt sent (never the signing secret), sorted by name; null before the first attempt",
      resolve: (d) =>
        d.last_request_headers
          ? Object.entries(d.last_request_headers)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([name, value]) => ({ name, value }))
          : null,
    }),
  }),
});

const DeliveryPageRef = builder.objectRef<DeliveryPageJson>("WebhookDeliveryPage").implement({
  fields: (t) => ({
    items: t.field({ type: [DeliveryRef], resolve: (p) => p.items }),
    nextCursor: t.string({ nullable: true, resolve: (p) => p.next_cursor }),
  }),
});

const WebhookFiltersInput = builder.inputType("WebhookFiltersInput", {
  fields: (t) => ({
    agentId: t.string({ required: true }),
    recipientAddress: t.string({ required: false }),
    routedToAddress: t.string({ required: false }),
    minAmountWei: t.string({ required: false, description: "uint256 as a decimal string" }),
    tokenAddress: t.string({ required: false }),
  }),
});

const CreateWebhookInput = builder.inputType("CreateWebhookInput", {
  fields: (t) => ({
    callbackUrl: t.string({ required: true }),
    label: t.string({ required: false }),
    filters: t.field({ type: WebhookFiltersInput, required: true }),
  }),
});

const OkStatusRef = builder.objectRef<{ ok: true; status: string }>("WebhookVerified").implement({
  fields: (t) => ({ ok: t.exposeBoolean("ok"), status: t.exposeString("status") }),
});
const RotatedRef = builder.objectRef<{ signing_secret: string }>("WebhookSecret").implement({
  fields: (t) => ({ signingSecret: t.string({ resolve: (r) => r.signing_secret }) }),
});
const RecoveryRef = builder.objectRef<Awaited<ReturnType<WebhookService["recover"]>>>("WebhookRecovery").implement({
  description: "What a recovery created: deliveries for the matching ledger rows since `since` that had none.",
  fields: (t) => ({
    ok: t.exposeBoolean("ok"),
    since: t.exposeString("since"),
    matchedEvents: t.int({ description: "rows since `since` that match the filters", resolve: (r) => r.matched_events }),
    deliveriesCreated: t.int({ description: "new deliveries (matched rows that had none yet)", resolve: (r) => r.deliveries_created }),
  }),
});

builder.queryFields((t) => ({
  webhooks: t.field({
    type: [WebhookRef],
    description: "The caller's webhooks (not deleted), newest first.",
    resolve: async (_root, _args, ctx) => {
      const { service, userId } = await owner(ctx);
      return (await service.list(userId)).items;
    },
  }),
  webhook: t.field({
    type: WebhookRef,
    nullable: true,
    description: "One of the caller's webhooks with delivery counts; null when unknown or not the caller's.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      try {
        return await service.get(userId, String(args.id));
      } catch (error) {
        if (error instanceof WebhookError && error.code === "not_found") return null;
        throw error;
      }
    },
  }),
  webhookDeliveries: t.field({
    type: DeliveryPageRef,
    description: "The delivery log of one of the caller's webhooks, newest first.",
    args: { id: t.arg.id({ required: true }), first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      // the REST route's parsers (webhookInputs.ts), in its order: limit, then cursor
      const limit = parseDeliveryLimit(args.first === null || args.first === undefined ? undefined : String(args.first));
      const cursor = args.after ? decodeDeliveryCursor(args.after) : null;
      return service.listDeliveries(userId, String(args.id), { limit, cursor, status: null });
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WebhookCreatedRef,
    args: { input: t.arg({ type: CreateWebhookInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const { service, userId } = await owner(ctx);
      const f = input.filters;
      const filters: Record<string, string> = { agent_id: f.agentId };
      if (f.recipientAddress != null) filters.recipient_address = f.recipientAddress;
      if (f.routedToAddress != null) filters.routed_to_address = f.routedToAddress;
      if (f.minAmountWei != null) filters.min_amount_wei = f.minAmountWei;
      if (f.tokenAddress != null) filters.token_address = f.tokenAddress;
      return service.create(userId, { callback_url: input.callbackUrl, ...(input.label != null ? { label: input.label } : {}), filters });
    },
  }),
  verifyWebhook: t.field({
    type: OkStatusRef,
    args: { id: t.arg.id({ required: true }), verifyToken: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      if (!ctx.webhooks || !ctx.principal) throw new WebhookError("not_configured", "webhooks are not available on this endpoint");
      const p = await ctx.principal({ optional: true });
      return ctx.webhooks.verify(p?.userId ?? null, String(args.id), parseVerifyToken({ verify_token: args.verifyToken }));
    },
  }),
  rotateWebhookSecret: t.field({
    type: RotatedRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      return service.rotateSecret(userId, String(args.id));
    },
  }),
  pauseWebhook: t.field({
    type: WebhookRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      return service.pause(userId, String(args.id));
    },
  }),
  resumeWebhook: t.field({
    type: WebhookRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      return service.resume(userId, String(args.id));
    },
  }),
  deleteWebhook: t.field({
    type: OkStatusRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      return service.remove(userId, String(args.id));
    },
  }),
  recoverWebhook: t.field({
    type: RecoveryRef,
    description: "Deliver the matching ledger rows recorded since `since` (ISO 8601, at most 7 days ago) that have no delivery yet. Active webhooks only.",
    args: { id: t.arg.id({ required: true }), since: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      return service.recover(userId, String(args.id), { since: args.since });
    },
  }),
  testWebhook: t.field({
    type: DeliveryRef,
    description: "Send a signed `svc.webhook.test` event through the normal delivery path. Active webhooks only.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      return (await service.test(userId, String(args.id))).delivery;
    },
  }),
  redeliverWebhookDelivery: t.field({
    type: DeliveryRef,
    args: { id: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { service, userId } = await owner(ctx);
      return (await service.redeliver(userId, String(args.id), String(args.deliveryId))).delivery;
    },
  }),
}));
