import type { SubscriptionStatus } from "@agent-ledger/core";
import type pg from "pg";
import { SUB_COLUMNS, type SubscriptionRow } from "./subscriptionJson.ts";

/** Writes a state the machine decided (deleted also stamps deleted_at); returns the row. */
export async function setSubscriptionState(
  c: pg.PoolClient,
  id: string,
  status: SubscriptionStatus,
  consecutiveFailures: number,
  reason: string | null,
): Promise<SubscriptionRow> {
  const { rows } = await c.query(
    `UPDATE webhook_subscriptions SET status = $2, consecutive_failures = $3, status_reason = $4, updated_at = now(),
       deleted_at = CASE WHEN $2 = 'deleted' THEN now() ELSE deleted_at END
     WHERE id = $1 RETURNING ${SUB_COLUMNS}`,
    [id, status, consecutiveFailures, reason],
  );
  return rows[0];
}
