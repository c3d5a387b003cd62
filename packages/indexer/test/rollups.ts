import pg from "pg";

/**
 * The rollup tables as stored, and the same numbers computed by brute force from agent_events;
 * tests assert the two are equal.
 */
export async function compareRollups(databaseUrl: string, version = "v0.1") {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const q = async (sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows.map((r) => JSON.stringify(r));
    const out: Record<string, { stored: string[]; brute: string[] }> = {};
    for (const [grain, unit] of [
      ["hourly", "hour"],
      ["daily", "day"],
    ] as const) {
      out[`entity_${grain}`] = {
        stored: await q(`SELECT entity_id, bucket, sent_count, sent_sum_wei::text, received_count, received_sum_wei::text, fee_count, fee_sum_wei::text
                         FROM entity_activity_${grain} ORDER BY 1, 2`),
        brute: await q(
          `SELECT agent_id AS entity_id, date_trunc('${unit}', ts, 'UTC') AS bucket,
                          count(*) FILTER (WHERE kind = 'payment_sent')::int AS sent_count, coalesce(sum(amount_wei) FILTER (WHERE kind = 'payment_sent'), 0)::text AS sent_sum_wei,
                          count(*) FILTER (WHERE kind = 'payment_received')::int AS received_count, coalesce(sum(amount_wei) FILTER (WHERE kind = 'payment_received'), 0)::text AS received_sum_wei,
                          count(*) FILTER (WHERE kind = 'fee_paid')::int AS fee_count, coalesce(sum(amount_wei) FILTER (WHERE kind = 'fee_paid'), 0)::text AS fee_sum_wei
                        FROM agent_events WHERE methodology_version = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
          [version],
        ),
      };
      out[`ledger_${grain}`] = {
        stored: await q(`SELECT bucket, payments_count, amount_sum_wei::text FROM ledger_activity_${grain} ORDER BY 1`),
        brute: await q(
          `SELECT date_trunc('${unit}', ts, 'UTC') AS bucket, count(*)::int AS payments_count, sum(amount_wei)::text AS amount_sum_wei
                        FROM (SELECT DISTINCT tx_hash, log_index, ts, amount_wei FROM agent_events WHERE methodology_version = $1 AND kind <> 'fee_paid') p
                        GROUP BY 1 ORDER BY 1`,
          [version],
        ),
      };
      out[`provider_${grain}`] = {
        stored: await q(`SELECT provider_key, bucket, pattern, payments_count, amount_sum_wei::text FROM provider_activity_${grain} ORDER BY 1, 2`),
        brute: await q(
          `SELECT CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END AS provider_key,
                               date_trunc('${unit}', ts, 'UTC') AS bucket,
                               CASE WHEN routed_to_address <> '' THEN 'address' ELSE 'fingerprint' END AS pattern,
                               count(*)::int AS payments_count, sum(amount_wei)::text AS amount_sum_wei
                        FROM (SELECT DISTINCT tx_hash, log_index, ts, amount_wei, routed_to_address, routed_fingerprint FROM agent_events
                              WHERE methodology_version = $1 AND kind <> 'fee_paid' AND (routed_to_address <> '' OR routed_fingerprint IS NOT NULL)) p
                        GROUP BY 1, 2, 3 ORDER BY 1, 2`,
          [version],
        ),
      };
      out[`entity_token_${grain}`] = {
        stored: await q(`SELECT entity_id, bucket, token_address, payments_count, amount_sum_wei::text, fee_count, fee_sum_wei::text
                         FROM entity_token_activity_${grain} ORDER BY 1, 2, 3`),
        brute: await q(
          `SELECT agent_id AS entity_id, date_trunc('${unit}', ts, 'UTC') AS bucket, token_address,
                          count(*) FILTER (WHERE kind <> 'fee_paid')::int AS payments_count, coalesce(sum(amount_wei) FILTER (WHERE kind <> 'fee_paid'), 0)::text AS amount_sum_wei,
                          count(*) FILTER (WHERE kind = 'fee_paid')::int AS fee_count, coalesce(sum(amount_wei) FILTER (WHERE kind = 'fee_paid'), 0)::text AS fee_sum_wei
                        FROM agent_events WHERE methodology_version = $1 AND kind IN ('payment_sent', 'payment_received', 'fee_paid')
                        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
          [version],
        ),
      };
      out[`provider_token_${grain}`] = {
        stored: await q(
          `SELECT provider_key, bucket, token_address, payments_count, amount_sum_wei::text FROM provider_token_activity_${grain} ORDER BY 1, 2, 3`,
        ),
        brute: await q(
          `SELECT CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END AS provider_key,
                               date_trunc('${unit}', ts, 'UTC') AS bucket, token_address,
                               count(*)::int AS payments_count, sum(amount_wei)::text AS amount_sum_wei
                        FROM (SELECT DISTINCT tx_hash, log_index, ts, amount_wei, token_address, routed_to_address, routed_fingerprint FROM agent_events
                              WHERE methodology_version = $1 AND kind <> 'fee_paid' AND (routed_to_address <> '' OR routed_fingerprint IS NOT NULL)) p
                        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
          [version],
        ),
      };
    }
    out.entity_total = {
      stored: await q(`SELECT entity_id, sent_count::int, sent_sum_wei::text, received_count::int, received_sum_wei::text, fee_count::int, fee_sum_wei::text
                       FROM entity_activity_total ORDER BY 1`),
      brute: await q(
        `SELECT agent_id AS entity_id,
                        count(*) FILTER (WHERE kind = 'payment_sent')::int AS sent_count, coalesce(sum(amount_wei) FILTER (WHERE kind = 'payment_sent'), 0)::text AS sent_sum_wei,
                        count(*) FILTER (WHERE kind = 'payment_received')::int AS received_count, coalesce(sum(amount_wei) FILTER (WHERE kind = 'payment_received'), 0)::text AS received_sum_wei,
                        count(*) FILTER (WHERE kind = 'fee_paid')::int AS fee_count, coalesce(sum(amount_wei) FILTER (WHERE kind = 'fee_paid'), 0)::text AS fee_sum_wei
                      FROM agent_events WHERE methodology_version = $1 GROUP BY 1 ORDER BY 1`,
        [version],
      ),
    };
    out.provider_total = {
      stored: await q(`SELECT provider_key, pattern, payments_count::int, amount_sum_wei::text, first_seen, last_seen FROM provider_activity_total ORDER BY 1`),
      brute: await q(
        `SELECT CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END AS provider_key,
                             CASE WHEN routed_to_address <> '' THEN 'address' ELSE 'fingerprint' END AS pattern,
                             count(*)::int AS payments_count, sum(amount_wei)::text AS amount_sum_wei,
                             min(date_trunc('hour', ts, 'UTC')) AS first_seen, max(date_trunc('hour', ts, 'UTC')) AS last_seen
                      FROM (SELECT DISTINCT tx_hash, log_index, ts, amount_wei, routed_to_address, routed_fingerprint FROM agent_events
                            WHERE methodology_version = $1 AND kind <> 'fee_paid' AND (routed_to_address <> '' OR routed_fingerprint IS NOT NULL)) p
                      GROUP BY 1, 2 ORDER BY 1`,
        [version],
      ),
    };
    return out;
  } finally {
    await c.end();
  }
}
