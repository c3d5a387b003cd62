/**
 * SQL fragments that fold a set of freshly inserted `agent_events` rows (a CTE named `src` with the
 * table's columns) into the rollup tables. Used by the indexer's batch write (same statement as the
 * insert) and by the rollup rebuild after a rematch. Buckets are UTC.
 */
const GRAINS = [
  { suffix: "hourly", unit: "hour" },
  { suffix: "daily", unit: "day" },
] as const;

export function rollupCtes(src: string): string {
  const parts: string[] = [
    // One row per payment (a payment between two watched entities appears twice in src).
    `pay AS (SELECT DISTINCT ON (tx_hash, log_index) ts, amount_wei, routed_to_address, routed_fingerprint
             FROM ${src} WHERE kind <> 'fee_paid' ORDER BY tx_hash, log_index)`,
  ];
  for (const { suffix, unit } of GRAINS) {
    parts.push(`ent_${suffix} AS (
      INSERT INTO entity_activity_${suffix} AS t (entity_id, bucket, sent_count, sent_sum_wei, received_count, received_sum_wei, fee_count, fee_sum_wei)
      SELECT agent_id, date_trunc('${unit}', ts, 'UTC'),
        count(*) FILTER (WHERE kind = 'payment_sent'), coalesce(sum(amount_wei) FILTER (WHERE kind = 'payment_sent'), 0),
        count(*) FILTER (WHERE kind = 'payment_received'), coalesce(sum(amount_wei) FILTER (WHERE kind = 'payment_received'), 0),
        count(*) FILTER (WHERE kind = 'fee_paid'), coalesce(sum(amount_wei) FILTER (WHERE kind = 'fee_paid'), 0)
      FROM ${src} GROUP BY 1, 2
      ON CONFLICT (entity_id, bucket) DO UPDATE SET
        sent_count = t.sent_count + EXCLUDED.sent_count, sent_sum_wei = t.sent_sum_wei + EXCLUDED.sent_sum_wei,
        received_count = t.received_count + EXCLUDED.received_count, received_sum_wei = t.received_sum_wei + EXCLUDED.received_sum_wei,
        fee_count = t.fee_count + EXCLUDED.fee_count, fee_sum_wei = t.fee_sum_wei + EXCLUDED.fee_sum_wei
      RETURNING 1)`);
    parts.push(`led_${suffix} AS (
      INSERT INTO ledger_activity_${suffix} AS t (bucket, payments_count, amount_sum_wei)
      SELECT date_trunc('${unit}', ts, 'UTC'), count(*), sum(amount_wei) FROM pay GROUP BY 1
      ON CONFLICT (bucket) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
      RETURNING 1)`);
    parts.push(`prov_${suffix} AS (
      INSERT INTO provider_activity_${suffix} AS t (provider_key, bucket, pattern, payments_count, amount_sum_wei)
      SELECT CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END,
             date_trunc('${unit}', ts, 'UTC'),
             CASE WHEN routed_to_address <> '' THEN 'address' ELSE 'fingerprint' END,
             count(*), sum(amount_wei)
      FROM pay WHERE routed_to_address <> '' OR routed_fingerprint IS NOT NULL GROUP BY 1, 2, 3
      ON CONFLICT (provider_key, bucket) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
      RETURNING 1)`);
  }
  return parts.join(",\n");
}

export const ROLLUP_TABLES = [
  "entity_activity_hourly", "entity_activity_daily", "ledger_activity_hourly", "ledger_activity_daily",
  "provider_activity_hourly", "provider_activity_daily",
] as const;
