import type { FilterableEvent, WebhookFilter } from "./types.ts";

/**
 * True when `event` matches every condition present in `filter` (spec §2: AND, no OR, no regex).
 * Addresses compare case-insensitively; amounts as big integers.
 */
export function evaluateFilter(filter: WebhookFilter, event: FilterableEvent): boolean {
  if (event.agentId !== filter.agentId) return false;
  if (filter.recipientAddress && event.counterpartyAddress.toLowerCase() !== filter.recipientAddress.toLowerCase()) return false;
  if (filter.routedToAddress && event.routedToAddress.toLowerCase() !== filter.routedToAddress.toLowerCase()) return false;
  if (filter.tokenAddress && event.tokenAddress.toLowerCase() !== filter.tokenAddress.toLowerCase()) return false;
  if (filter.minAmountWei !== undefined && filter.minAmountWei !== null && event.amountWei < filter.minAmountWei) return false;
  return true;
}
