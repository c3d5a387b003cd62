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
    // One row per payment (a payment between two watched entities appears twice in src); all rows of one
    // (tx_hash, log_index) have the same kind family, so any of them stands for it.
    `pay AS (SELECT DISTINCT ON (tx_hash, log_index) ts, amount_wei, token_address, routed_to_address, routed_fingerprint, kind, methodology_version, attribution
             FROM ${src} WHERE kind <> 'fee_paid' ORDER BY tx_hash, log_index)`,
    // Activity (docs/methodology.md): payments only — v0.2's settlement legs and funding moves are not volume.
    `act AS (SELECT * FROM pay WHERE kind IN ('payment_sent', 'payment_received'))`,
    // Provider views, as core's computeRollups: v0.1 every routed payment; v0.2 what reached the provider (settlement
    // legs by address, and payments routed by a fingerprint not linked to an address); v0.3 (rule 6) the same, plus a
    // session payout (attribution session_escrow) by its payee's address.
    `prv AS (SELECT * FROM pay WHERE CASE WHEN methodology_version = 'v0.1'
               THEN kind IN ('payment_sent', 'payment_received') AND (routed_to_address <> '' OR routed_fingerprint IS NOT NULL)
               WHEN methodology_version = 'v0.3' AND kind IN ('payment_sent', 'payment_received')
               THEN CASE WHEN attribution = 'session_escrow' THEN routed_to_address <> ''
                         ELSE routed_to_address = '' AND routed_fingerprint IS NOT NULL END
               ELSE (kind IN ('settlement_sent', 'settlement_received') AND routed_to_address <> '')
                 OR (kind IN ('payment_sent', 'payment_received') AND routed_to_address = '' AND routed_fingerprint IS NOT NULL) END)`,
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
      SELECT date_trunc('${unit}', ts, 'UTC'), count(*), sum(amount_wei) FROM act GROUP BY 1
      ON CONFLICT (bucket) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
      RETURNING 1)`);
    parts.push(`ledt_${suffix} AS (
      INSERT INTO ledger_token_activity_${suffix} AS t (bucket, token_address, payments_count, amount_sum_wei)
      SELECT date_trunc('${unit}', ts, 'UTC'), token_address, count(*), sum(amount_wei) FROM act GROUP BY 1, 2
      ON CONFLICT (bucket, token_address) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
      RETURNING 1)`);
    // Per-token breakdowns of the entity and provider buckets (the same rows, grouped by token as well).
    parts.push(`entt_${suffix} AS (
      INSERT INTO entity_token_activity_${suffix} AS t (entity_id, bucket, token_address, payments_count, amount_sum_wei, fee_count, fee_sum_wei)
      SELECT agent_id, date_trunc('${unit}', ts, 'UTC'), token_address,
        count(*) FILTER (WHERE kind <> 'fee_paid'), coalesce(sum(amount_wei) FILTER (WHERE kind <> 'fee_paid'), 0),
        count(*) FILTER (WHERE kind = 'fee_paid'), coalesce(sum(amount_wei) FILTER (WHERE kind = 'fee_paid'), 0)
      FROM ${src} WHERE kind IN ('payment_sent', 'payment_received', 'fee_paid') GROUP BY 1, 2, 3
      ON CONFLICT (entity_id, bucket, token_address) DO UPDATE SET
        payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei,
        fee_count = t.fee_count + EXCLUDED.fee_count, fee_sum_wei = t.fee_sum_wei + EXCLUDED.fee_sum_wei
      RETURNING 1)`);
    parts.push(`provt_${suffix} AS (
      INSERT INTO provider_token_activity_${suffix} AS t (provider_key, bucket, token_address, payments_count, amount_sum_wei)
      SELECT CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END,
             date_trunc('${unit}', ts, 'UTC'), token_address, count(*), sum(amount_wei)
      FROM prv GROUP BY 1, 2, 3
      ON CONFLICT (provider_key, bucket, token_address) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
      RETURNING 1)`);
    parts.push(`prov_${suffix} AS (
      INSERT INTO provider_activity_${suffix} AS t (provider_key, bucket, pattern, payments_count, amount_sum_wei)
      SELECT CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END,
             date_trunc('${unit}', ts, 'UTC'),
             CASE WHEN routed_to_address <> '' THEN 'address' ELSE 'fingerprint' END,
             count(*), sum(amount_wei)
      FROM prv GROUP BY 1, 2, 3
      ON CONFLICT (provider_key, bucket) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
      RETURNING 1)`);
  }
  // All-time totals per entity (one row each): what the `all` dashboard window reads.
  parts.push(`ent_total AS (
      INSERT INTO entity_activity_total AS t (entity_id, sent_count, sent_sum_wei, received_count, received_sum_wei, fee_count, fee_sum_wei)
      SELECT agent_id,
        count(*) FILTER (WHERE kind = 'payment_sent'), coalesce(sum(amount_wei) FILTER (WHERE kind = 'payment_sent'), 0),
        count(*) FILTER (WHERE kind = 'payment_received'), coalesce(sum(amount_wei) FILTER (WHERE kind = 'payment_received'), 0),
        count(*) FILTER (WHERE kind = 'fee_paid'), coalesce(sum(amount_wei) FILTER (WHERE kind = 'fee_paid'), 0)
      FROM ${src} GROUP BY 1
      ON CONFLICT (entity_id) DO UPDATE SET
        sent_count = t.sent_count + EXCLUDED.sent_count, sent_sum_wei = t.sent_sum_wei + EXCLUDED.sent_sum_wei,
        received_count = t.received_count + EXCLUDED.received_count, received_sum_wei = t.received_sum_wei + EXCLUDED.received_sum_wei,
        fee_count = t.fee_count + EXCLUDED.fee_count, fee_sum_wei = t.fee_sum_wei + EXCLUDED.fee_sum_wei
      RETURNING 1)`);
  // All-time totals per provider (one row each): what the gateway's provider list reads.
  parts.push(`prov_total AS (
      INSERT INTO provider_activity_total AS t (provider_key, pattern, payments_count, amount_sum_wei, first_seen, last_seen)
      SELECT CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END,
             min(CASE WHEN routed_to_address <> '' THEN 'address' ELSE 'fingerprint' END),
             count(*), sum(amount_wei), min(date_trunc('hour', ts, 'UTC')), max(date_trunc('hour', ts, 'UTC'))
      FROM prv GROUP BY 1
      ON CONFLICT (provider_key) DO UPDATE SET pattern = least(t.pattern, EXCLUDED.pattern),
        payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei,
        first_seen = least(t.first_seen, EXCLUDED.first_seen), last_seen = greatest(t.last_seen, EXCLUDED.last_seen)
      RETURNING 1)`);
  return parts.join(",\n");
}

/**
 * After the rollup buckets of the UTC days [$1, $2] were deleted and recomputed (rebuildRollups), sets
 * provider_activity_total of every provider that had or has an hourly bucket in those days from all its hourly
 * buckets (overwriting what the recomputation's prov_total CTE added); a provider left without buckets is removed.
 */
export const PROVIDER_TOTALS_REBUILD = `
WITH k AS (
  SELECT provider_key FROM provider_activity_total
  WHERE first_seen < date_trunc('day', $2::timestamptz, 'UTC') + interval '1 day' AND last_seen >= date_trunc('day', $1::timestamptz, 'UTC')
  UNION
  SELECT provider_key FROM provider_activity_hourly
  WHERE bucket >= date_trunc('day', $1::timestamptz, 'UTC') AND bucket < date_trunc('day', $2::timestamptz, 'UTC') + interval '1 day'
),
agg AS (
  SELECT k.provider_key, a.pattern, a.n, a.s, a.f, a.l FROM k CROSS JOIN LATERAL (
    SELECT min(h.pattern) AS pattern, sum(h.payments_count) AS n, sum(h.amount_sum_wei) AS s, min(h.bucket) AS f, max(h.bucket) AS l
    FROM provider_activity_hourly h WHERE h.provider_key = k.provider_key) a
),
gone AS (DELETE FROM provider_activity_total t USING agg WHERE t.provider_key = agg.provider_key AND agg.n IS NULL RETURNING 1)
INSERT INTO provider_activity_total AS t (provider_key, pattern, payments_count, amount_sum_wei, first_seen, last_seen)
SELECT provider_key, pattern, n, s, f, l FROM agg WHERE n IS NOT NULL
ON CONFLICT (provider_key) DO UPDATE SET pattern = EXCLUDED.pattern, payments_count = EXCLUDED.payments_count,
  amount_sum_wei = EXCLUDED.amount_sum_wei, first_seen = EXCLUDED.first_seen, last_seen = EXCLUDED.last_seen`;

/**
 * After a rollup rebuild: every entity's all-time totals again from its daily buckets (a rebuild only follows a
 * rematch, so the few thousand daily rows per entity are cheap); an entity left without buckets has no row.
 */
export const ENTITY_TOTALS_REBUILD = [
  "DELETE FROM entity_activity_total",
  `INSERT INTO entity_activity_total (entity_id, sent_count, sent_sum_wei, received_count, received_sum_wei, fee_count, fee_sum_wei)
   SELECT entity_id, sum(sent_count), sum(sent_sum_wei), sum(received_count), sum(received_sum_wei), sum(fee_count), sum(fee_sum_wei)
   FROM entity_activity_daily GROUP BY entity_id`,
] as const;

export const ROLLUP_TABLES = [
  "entity_activity_hourly",
  "entity_activity_daily",
  "ledger_activity_hourly",
  "ledger_activity_daily",
  "ledger_token_activity_hourly",
  "ledger_token_activity_daily",
  "entity_token_activity_hourly",
  "entity_token_activity_daily",
  "provider_token_activity_hourly",
  "provider_token_activity_daily",
  "provider_activity_hourly",
  "provider_activity_daily",
  "provider_activity_total",
  "entity_activity_total",
] as const;
