import type { RollupDeltas, RollupGrain } from "@agent-ledger/core";
import { toPgArray } from "./toPgArray.ts";

function grainCtes(suffix: "hourly" | "daily", p: number): string {
  const $ = (i: number) => `$${p + i}`;
  return `
ent_${suffix} AS (
  INSERT INTO entity_activity_${suffix} AS t (entity_id, bucket, sent_count, sent_sum_wei, received_count, received_sum_wei, fee_count, fee_sum_wei)
  SELECT * FROM unnest(${$(0)}::text[], ${$(1)}::timestamptz[], ${$(2)}::int[], ${$(3)}::numeric[], ${$(4)}::int[], ${$(5)}::numeric[], ${$(6)}::int[], ${$(7)}::numeric[])
  ON CONFLICT (entity_id, bucket) DO UPDATE SET
    sent_count = t.sent_count + EXCLUDED.sent_count, sent_sum_wei = t.sent_sum_wei + EXCLUDED.sent_sum_wei,
    received_count = t.received_count + EXCLUDED.received_count, received_sum_wei = t.received_sum_wei + EXCLUDED.received_sum_wei,
    fee_count = t.fee_count + EXCLUDED.fee_count, fee_sum_wei = t.fee_sum_wei + EXCLUDED.fee_sum_wei
  RETURNING 1),
led_${suffix} AS (
  INSERT INTO ledger_activity_${suffix} AS t (bucket, payments_count, amount_sum_wei)
  SELECT * FROM unnest(${$(8)}::timestamptz[], ${$(9)}::int[], ${$(10)}::numeric[])
  ON CONFLICT (bucket) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
  RETURNING 1),
prov_${suffix} AS (
  INSERT INTO provider_activity_${suffix} AS t (provider_key, bucket, pattern, payments_count, amount_sum_wei)
  SELECT * FROM unnest(${$(11)}::text[], ${$(12)}::timestamptz[], ${$(13)}::text[], ${$(14)}::int[], ${$(15)}::numeric[])
  ON CONFLICT (provider_key, bucket) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
  RETURNING 1)`;
}

// The same upserts as the SQL rollup (rollupSql.ts), fed with deltas computed in Node (core's computeRollups).
export const UPSERT_ROLLUPS = `
WITH ${grainCtes("hourly", 1)},
${grainCtes("daily", 17)},
prov_total AS (
  INSERT INTO provider_activity_total AS t (provider_key, pattern, payments_count, amount_sum_wei, first_seen, last_seen)
  SELECT * FROM unnest($33::text[], $34::text[], $35::bigint[], $36::numeric[], $37::timestamptz[], $38::timestamptz[])
  ON CONFLICT (provider_key) DO UPDATE SET pattern = least(t.pattern, EXCLUDED.pattern),
    payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei,
    first_seen = least(t.first_seen, EXCLUDED.first_seen), last_seen = greatest(t.last_seen, EXCLUDED.last_seen)
  RETURNING 1),
ent_total AS (
  INSERT INTO entity_activity_total AS t (entity_id, sent_count, sent_sum_wei, received_count, received_sum_wei, fee_count, fee_sum_wei)
  SELECT * FROM unnest($39::text[], $40::bigint[], $41::numeric[], $42::bigint[], $43::numeric[], $44::bigint[], $45::numeric[])
  ON CONFLICT (entity_id) DO UPDATE SET
    sent_count = t.sent_count + EXCLUDED.sent_count, sent_sum_wei = t.sent_sum_wei + EXCLUDED.sent_sum_wei,
    received_count = t.received_count + EXCLUDED.received_count, received_sum_wei = t.received_sum_wei + EXCLUDED.received_sum_wei,
    fee_count = t.fee_count + EXCLUDED.fee_count, fee_sum_wei = t.fee_sum_wei + EXCLUDED.fee_sum_wei
  RETURNING 1),
${["hourly", "daily"]
  .map(
    (g, i) => `ledt_${g} AS (
  INSERT INTO ledger_token_activity_${g} AS t (bucket, token_address, payments_count, amount_sum_wei)
  SELECT * FROM unnest($${46 + 4 * i}::timestamptz[], $${47 + 4 * i}::text[], $${48 + 4 * i}::int[], $${49 + 4 * i}::numeric[])
  ON CONFLICT (bucket, token_address) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
  RETURNING 1)`,
  )
  .join(",\n")},
${["hourly", "daily"]
  .map(
    (g, i) => `entt_${g} AS (
  INSERT INTO entity_token_activity_${g} AS t (entity_id, bucket, token_address, payments_count, amount_sum_wei, fee_count, fee_sum_wei)
  SELECT * FROM unnest($${54 + 7 * i}::text[], $${55 + 7 * i}::timestamptz[], $${56 + 7 * i}::text[], $${57 + 7 * i}::int[], $${58 + 7 * i}::numeric[], $${59 + 7 * i}::int[], $${60 + 7 * i}::numeric[])
  ON CONFLICT (entity_id, bucket, token_address) DO UPDATE SET
    payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei,
    fee_count = t.fee_count + EXCLUDED.fee_count, fee_sum_wei = t.fee_sum_wei + EXCLUDED.fee_sum_wei
  RETURNING 1)`,
  )
  .join(",\n")},
${["hourly", "daily"]
  .map(
    (g, i) => `provt_${g} AS (
  INSERT INTO provider_token_activity_${g} AS t (provider_key, bucket, token_address, payments_count, amount_sum_wei)
  SELECT * FROM unnest($${68 + 5 * i}::text[], $${69 + 5 * i}::timestamptz[], $${70 + 5 * i}::text[], $${71 + 5 * i}::int[], $${72 + 5 * i}::numeric[])
  ON CONFLICT (provider_key, bucket, token_address) DO UPDATE SET payments_count = t.payments_count + EXCLUDED.payments_count, amount_sum_wei = t.amount_sum_wei + EXCLUDED.amount_sum_wei
  RETURNING 1)`,
  )
  .join(",\n")}
SELECT 1`;

const iso = (d: Date) => d.toISOString();
const col = <T>(items: readonly T[], pick: (x: T) => string | number | null) => toPgArray(items.map(pick));

function grainParams(g: RollupGrain): string[] {
  return [
    col(g.entities, (e) => e.entityId),
    col(g.entities, (e) => iso(e.bucket)),
    col(g.entities, (e) => e.sentCount),
    col(g.entities, (e) => e.sentSumWei.toString()),
    col(g.entities, (e) => e.receivedCount),
    col(g.entities, (e) => e.receivedSumWei.toString()),
    col(g.entities, (e) => e.feeCount),
    col(g.entities, (e) => e.feeSumWei.toString()),
    col(g.ledger, (l) => iso(l.bucket)),
    col(g.ledger, (l) => l.paymentsCount),
    col(g.ledger, (l) => l.amountSumWei.toString()),
    col(g.providers, (p) => p.providerKey),
    col(g.providers, (p) => iso(p.bucket)),
    col(g.providers, (p) => p.pattern),
    col(g.providers, (p) => p.paymentsCount),
    col(g.providers, (p) => p.amountSumWei.toString()),
  ];
}

/** The parameters of UPSERT_ROLLUPS for a batch's deltas (array literals; the COPY script inlines them, inlineParams). */
export function rollupParams(deltas: RollupDeltas): string[] {
  const t = deltas.providerTotals;
  const e = deltas.entityTotals;
  return [
    ...grainParams(deltas.hourly),
    ...grainParams(deltas.daily),
    col(t, (x) => x.providerKey),
    col(t, (x) => x.pattern),
    col(t, (x) => x.paymentsCount),
    col(t, (x) => x.amountSumWei.toString()),
    col(t, (x) => iso(x.firstSeen)),
    col(t, (x) => iso(x.lastSeen)),
    col(e, (x) => x.entityId),
    col(e, (x) => x.sentCount),
    col(e, (x) => x.sentSumWei.toString()),
    col(e, (x) => x.receivedCount),
    col(e, (x) => x.receivedSumWei.toString()),
    col(e, (x) => x.feeCount),
    col(e, (x) => x.feeSumWei.toString()),
    ...[deltas.hourly.ledgerTokens, deltas.daily.ledgerTokens].flatMap((l) => [
      col(l, (x) => iso(x.bucket)),
      col(l, (x) => x.tokenAddress),
      col(l, (x) => x.paymentsCount),
      col(l, (x) => x.amountSumWei.toString()),
    ]),
    ...[deltas.hourly.entityTokens, deltas.daily.entityTokens].flatMap((l) => [
      col(l, (x) => x.entityId),
      col(l, (x) => iso(x.bucket)),
      col(l, (x) => x.tokenAddress),
      col(l, (x) => x.paymentsCount),
      col(l, (x) => x.amountSumWei.toString()),
      col(l, (x) => x.feeCount),
      col(l, (x) => x.feeSumWei.toString()),
    ]),
    ...[deltas.hourly.providerTokens, deltas.daily.providerTokens].flatMap((l) => [
      col(l, (x) => x.providerKey),
      col(l, (x) => iso(x.bucket)),
      col(l, (x) => x.tokenAddress),
      col(l, (x) => x.paymentsCount),
      col(l, (x) => x.amountSumWei.toString()),
    ]),
  ];
}
