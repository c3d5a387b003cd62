import { createSubscription } from "./createSubscription.ts";
import { getSubscription } from "./getSubscription.ts";
import { listDeliveries } from "./listDeliveries.ts";
import { listSubscriptions } from "./listSubscriptions.ts";
import { pauseSubscription } from "./pauseSubscription.ts";
import { recoverSubscription } from "./recoverSubscription.ts";
import { redeliver } from "./redeliver.ts";
import { removeSubscription } from "./removeSubscription.ts";
import { resumeSubscription } from "./resumeSubscription.ts";
import { rotateSigningSecret } from "./rotateSigningSecret.ts";
import { sendTestDelivery } from "./sendTestDelivery.ts";
import { verifySubscription } from "./verifySubscription.ts";
import { createWebhookContext, type WebhookServiceDeps } from "./webhookContext.ts";
import type { DeliveryPage } from "./webhookInputs.ts";

export { subscriptionJson, type SubscriptionRow } from "./subscriptionJson.ts";
export { DELIVERIES_CHANNEL, MAX_SUBSCRIPTIONS_PER_USER } from "./webhookConstants.ts";
export type { WebhookServiceDeps } from "./webhookContext.ts";

/**
 * Webhook subscriptions for one owner at a time: every query is scoped by `owner_user_id`, so
 * someone else's (or a deleted) subscription is indistinguishable from a missing one (404).
 * One named step per operation (this folder, one file each).
 */
export function createWebhookService(deps: WebhookServiceDeps) {
  const ctx = createWebhookContext(deps);
  return {
    create: (owner: string, body: Record<string, unknown>) => createSubscription(ctx, owner, body),
    list: (owner: string) => listSubscriptions(ctx, owner),
    get: (owner: string, id: string) => getSubscription(ctx, owner, id),
    verify: (owner: string | null, id: string, token: string) => verifySubscription(ctx, owner, id, token),
    rotateSecret: (owner: string, id: string) => rotateSigningSecret(ctx, owner, id),
    pause: (owner: string, id: string) => pauseSubscription(ctx, owner, id),
    resume: (owner: string, id: string) => resumeSubscription(ctx, owner, id),
    remove: (owner: string, id: string) => removeSubscription(ctx, owner, id),
    listDeliveries: (owner: string, id: string, page: DeliveryPage) => listDeliveries(ctx, owner, id, page),
    redeliver: (owner: string, id: string, deliveryId: string) => redeliver(ctx, owner, id, deliveryId),
    recover: (owner: string, id: string, body: { since?: unknown }) => recoverSubscription(ctx, owner, id, body),
    test: (owner: string, id: string) => sendTestDelivery(ctx, owner, id),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
