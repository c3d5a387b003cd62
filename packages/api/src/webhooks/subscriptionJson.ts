import type { SubscriptionStatus } from "@agent-ledger/core";

/** The columns of a subscription row as subscriptionJson reads them. */
export const SUB_COLUMNS = `id, status, callback_url, label, filter_agent_id, filter_recipient_address, filter_routed_to_address,
  filter_min_amount_wei::text AS filter_min_amount_wei, filter_token_address, verify_token_expires_at, consecutive_failures,
  status_reason, created_at, updated_at`;

export type SubscriptionRow = {
  id: string;
  status: SubscriptionStatus;
  callback_url: string;
  label: string;
  filter_agent_id: string;
  filter_recipient_address: string | null;
  filter_routed_to_address: string | null;
  filter_min_amount_wei: string | null;
  filter_token_address: string | null;
  verify_token_expires_at: Date;
  consecutive_failures: number;
  status_reason: string | null;
  created_at: Date;
  updated_at: Date;
};

/** The subscription as the API shows it (never a secret). */
export function subscriptionJson(row: SubscriptionRow) {
  const filters: Record<string, string> = { agent_id: row.filter_agent_id };
  if (row.filter_recipient_address) filters.recipient_address = row.filter_recipient_address;
  if (row.filter_routed_to_address) filters.routed_to_address = row.filter_routed_to_address;
  if (row.filter_min_amount_wei !== null) filters.min_amount_wei = row.filter_min_amount_wei;
  if (row.filter_token_address) filters.token_address = row.filter_token_address;
  return {
    id: row.id,
    status: row.status,
    callback_url: row.callback_url,
    filters,
    label: row.label,
    verify_token_expires_at: row.verify_token_expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    consecutive_failures: row.consecutive_failures,
    status_reason: row.status_reason,
  };
}
