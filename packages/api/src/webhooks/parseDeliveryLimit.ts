import { WebhookError } from "./WebhookError.ts";

/** A page size of the delivery log: 1–200, default 50 (400 `invalid_limit`). */
export function parseDeliveryLimit(text: string | undefined): number {
  const limitText = text ?? "50";
  if (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 200)
    throw new WebhookError("invalid_limit", "limit must be an integer from 1 to 200");
  return Number(limitText);
}
