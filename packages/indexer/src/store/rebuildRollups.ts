import type pg from "pg";
import { ENTITY_TOTALS_REBUILD, PROVIDER_TOTALS_REBUILD, rollupCtes } from "./rollupSql.ts";

/**
 * Recomputes every rollup bucket that overlaps [fromTs, toTs] from the `agent_events` rows of
 * `version` (whole UTC days, so hourly and daily buckets stay consistent), then the all-time totals of the providers
 * paid in those days and of every entity. Call inside a transaction.
 */
export async function rebuildRollups(client: pg.ClientBase, version: string, fromTs: Date, toTs: Date): Promise<void> {
  const bounds = [fromTs.toISOString(), toTs.toISOString()];
  const lo = "date_trunc('day', $1::timestamptz, 'UTC')";
  const hi = "date_trunc('day', $2::timestamptz, 'UTC') + interval '1 day'";
  await client.query(
    `WITH d1 AS (DELETE FROM entity_activity_hourly WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d2 AS (DELETE FROM entity_activity_daily WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d3 AS (DELETE FROM ledger_activity_hourly WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d4 AS (DELETE FROM ledger_activity_daily WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d5 AS (DELETE FROM provider_activity_hourly WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d6 AS (DELETE FROM provider_activity_daily WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d7 AS (DELETE FROM ledger_token_activity_hourly WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d8 AS (DELETE FROM ledger_token_activity_daily WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d9 AS (DELETE FROM entity_token_activity_hourly WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d10 AS (DELETE FROM entity_token_activity_daily WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d11 AS (DELETE FROM provider_token_activity_hourly WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1),
          d12 AS (DELETE FROM provider_token_activity_daily WHERE bucket >= ${lo} AND bucket < ${hi} RETURNING 1)
     SELECT (SELECT count(*) FROM d1) + (SELECT count(*) FROM d2) + (SELECT count(*) FROM d3)
          + (SELECT count(*) FROM d4) + (SELECT count(*) FROM d5) + (SELECT count(*) FROM d6)
          + (SELECT count(*) FROM d7) + (SELECT count(*) FROM d8) + (SELECT count(*) FROM d9)
          + (SELECT count(*) FROM d10) + (SELECT count(*) FROM d11) + (SELECT count(*) FROM d12) AS n`,
    bounds,
  );
  await client.query(
    `WITH src AS (SELECT * FROM agent_events WHERE methodology_version = $3 AND ts >= ${lo} AND ts < ${hi}),
     ${rollupCtes("src")}
     SELECT 1`,
    [...bounds, version],
  );
  await client.query(PROVIDER_TOTALS_REBUILD, bounds);
  for (const statement of ENTITY_TOTALS_REBUILD) await client.query(statement);
}
