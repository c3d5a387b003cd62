/** Webhook filter v1 (spec §2): all present conditions ANDed. Addresses lowercase. */
export interface WebhookFilter {
  agentId: string;
  recipientAddress?: string | null;
  routedToAddress?: string | null;
  minAmountWei?: bigint | null;
  tokenAddress?: string | null;
}

/** The event fields a filter looks at. */
export interface FilterableEvent {
  agentId: string;
  counterpartyAddress: string;
  routedToAddress: string;
  amountWei: bigint;
  tokenAddress: string;
}

export const SUBSCRIPTION_STATUSES = ["pending_verify", "active", "paused", "disabled_by_failures", "deleted"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const DELIVERY_STATUSES = ["pending", "retrying", "succeeded", "dead"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
