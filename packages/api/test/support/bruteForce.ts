import type pg from "pg";

// The read API's aggregates computed the slow way, straight from agent_events (never the rollups), with window
// bounds derived independently in SQL. Tests compare the API's answers with these.

type Q = Pick<pg.ClientBase, "query">;

const WINDOWS: Record<string, { unit: "hour" | "day"; lo: string | null; hours: number | null }> = {
  "24h": { unit: "hour", lo: "23 hours", hours: 24 },
  "7d": { unit: "hour", lo: "167 hours", hours: 168 },
  "30d": { unit: "day", lo: "29 days", hours: 720 },
  all: { unit: "day", lo: null, hours: null },
};

/** SQL predicate: the row's bucket (date_trunc of ts) lies in window `w` at $1 (= now). */
function inWindow(w: string, column = "ts"): string {
  const { unit, lo } = WINDOWS[w]!;
  const bucket = `date_trunc('${unit}', ${column}, 'UTC')`;
  const head = `date_trunc('${unit}', $1::timestamptz, 'UTC')`;
  return `${bucket} < ${head} + interval '1 ${unit}'${lo ? ` AND ${bucket} >= ${head} - interval '${lo}'` : ""}`;
}

/**
 * A `byToken` array computed from rows: `rows` is a FROM clause (with WHERE) yielding `token_address` and `amount_wei`
 * of the rows to count; per token their count and sum with the allowlist's description, largest amount first.
 */
function tokensOf(rows: string): string {
  return `coalesce((SELECT json_agg(json_build_object('tokenAddress', x.token_address, 'symbol', t.symbol, 'decimals', t.decimals,
            'currency', t.currency, 'txCount', x.n, 'amountSumWei', x.s::text) ORDER BY x.s DESC, x.token_address)
          FROM (SELECT token_address, count(*)::int AS n, sum(amount_wei) AS s FROM ${rows} GROUP BY token_address) x
          LEFT JOIN tokens t ON t.address = x.token_address), '[]'::json)`;
}

const PAYMENTS = `(SELECT DISTINCT tx_hash, log_index, ts, amount_wei, token_address, routed_to_address, routed_fingerprint
                   FROM agent_events WHERE methodology_version = $2 AND kind <> 'fee_paid')`;

/** Wraps a provider query (columns key, pattern, …) with the provider's address, fingerprint and label. */
function withProviderLabels(inner: string): string {
  return `SELECT x.key, x.pattern,
            CASE WHEN x.pattern = 'address' THEN x.key ELSE (SELECT provider_address FROM fingerprint_labels WHERE fingerprint = x.key) END AS address,
            CASE WHEN x.pattern = 'fingerprint' THEN x.key END AS fingerprint,
            CASE WHEN x.pattern = 'address'
                 THEN coalesce((SELECT e.label FROM entity_wallets w JOIN entities e ON e.id = w.entity_id WHERE w.address = x.key),
                               (SELECT label FROM address_labels WHERE address = x.key))
                 ELSE (SELECT label FROM fingerprint_labels WHERE fingerprint = x.key) END AS label,
            x."txCount", x."amountSumWei", x."byToken", x.ord
     FROM (${inner}) x ORDER BY x.ord`;
}

export async function bruteDashboard(db: Q, now: Date, w: string, version = "v0.1") {
  const p = [now, version];
  const ledger = (await db.query(`SELECT count(*)::int AS n, coalesce(sum(amount_wei), 0)::text AS s FROM ${PAYMENTS} p WHERE ${inWindow(w)}`, p)).rows[0];
  const agents = (
    await db.query(
      `SELECT count(DISTINCT agent_id)::int AS n FROM agent_events WHERE methodology_version = $2 AND agent_id NOT LIKE '%-mpp' AND agent_id NOT IN (SELECT id FROM entities WHERE kind = 'escrow') AND ${inWindow(w)}`,
      p,
    )
  ).rows[0];
  const providerKey = "CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END";
  const providers = (
    await db.query(
      `SELECT count(DISTINCT ${providerKey})::int AS n FROM ${PAYMENTS} p WHERE (routed_to_address <> '' OR routed_fingerprint IS NOT NULL) AND ${inWindow(w)}`,
      p,
    )
  ).rows[0];
  const top = async (curated: boolean) =>
    (
      await db.query(
        `SELECT agent_id AS id, (SELECT label FROM entities WHERE id = agent_id) AS label, (SELECT category FROM entities WHERE id = agent_id) AS category,
              count(*)::int AS "txCount", sum(amount_wei)::text AS "amountSumWei",
              ${tokensOf(`agent_events b WHERE b.methodology_version = $2 AND b.kind IN ('payment_sent', 'payment_received') AND b.agent_id = o.agent_id AND ${inWindow(w, "b.ts")}`)} AS "byToken"
       FROM agent_events o WHERE methodology_version = $2 AND kind IN ('payment_sent', 'payment_received') AND (agent_id LIKE '%-mpp') = $3 AND ${inWindow(w)}
       GROUP BY agent_id ORDER BY sum(amount_wei) DESC, count(*) DESC, agent_id LIMIT 5`,
        [...p, curated],
      )
    ).rows;
  const topProviders = (
    await db.query(
      withProviderLabels(`SELECT g.*, ${tokensOf(`${PAYMENTS} b WHERE (CASE WHEN b.routed_to_address <> '' THEN b.routed_to_address ELSE b.routed_fingerprint END) = g.key AND ${inWindow(w, "b.ts")}`)} AS "byToken"
     FROM (SELECT ${providerKey} AS key, CASE WHEN routed_to_address <> '' THEN 'address' ELSE 'fingerprint' END AS pattern,
            count(*)::int AS "txCount", sum(amount_wei)::text AS "amountSumWei",
            row_number() OVER (ORDER BY sum(amount_wei) DESC, count(*) DESC, ${providerKey}) AS ord
     FROM ${PAYMENTS} p WHERE (routed_to_address <> '' OR routed_fingerprint IS NOT NULL) AND ${inWindow(w)}
     GROUP BY 1, 2 ORDER BY sum(amount_wei) DESC, count(*) DESC, 1 LIMIT 5) g`),
      p,
    )
  ).rows.map(({ ord: _ord, ...r }) => r);
  const byToken = (
    await db.query(
      `SELECT p.token_address AS "tokenAddress", t.symbol, t.decimals, t.currency, count(*)::int AS "txCount", sum(p.amount_wei)::text AS "amountSumWei"
     FROM ${PAYMENTS} p LEFT JOIN tokens t ON t.address = p.token_address WHERE ${inWindow(w, "p.ts")}
     GROUP BY 1, 2, 3, 4 ORDER BY sum(p.amount_wei) DESC, 1`,
      p,
    )
  ).rows;
  const recent = (await db.query(`SELECT id::int FROM agent_events WHERE methodology_version = $1 ORDER BY id DESC LIMIT 20`, [version])).rows.map((r) => r.id);
  let windowHours = WINDOWS[w]!.hours;
  if (windowHours === null) {
    const first = (await db.query(`SELECT min(date_trunc('day', ts, 'UTC')) AS f FROM agent_events WHERE methodology_version = $2 AND ${inWindow(w)}`, p))
      .rows[0].f as Date | null;
    windowHours = first ? Math.ceil((now.getTime() - first.getTime()) / 3_600_000) : 0;
  }
  return {
    windowHours,
    txCount: ledger.n,
    agentsActive: agents.n,
    amountSumWei: ledger.s,
    byToken,
    providersDetected: providers.n,
    topServices: await top(true),
    topAgents: await top(false),
    topProviders,
    recentEventIds: recent,
  };
}

/** `/api/services` or `/api/agents` items, computed from rows. */
export async function bruteEntityList(db: Q, now: Date, kind: "service" | "agent", version = "v0.1") {
  const { rows } = await db.query(
    `SELECT e.id, e.label, e.category, e.kind, e.active,
            coalesce((SELECT array_agg(address ORDER BY address) FROM entity_wallets WHERE entity_id = e.id), '{}') AS wallets,
            (SELECT count(*)::int FROM agent_events a WHERE a.agent_id = e.id AND a.methodology_version = $2 AND a.kind <> 'fee_paid' AND ${inWindow("24h", "a.ts")}) AS "txCount24h",
            (SELECT coalesce(sum(amount_wei), 0)::text FROM agent_events a WHERE a.agent_id = e.id AND a.methodology_version = $2 AND a.kind <> 'fee_paid' AND ${inWindow("24h", "a.ts")}) AS "amountSumWei24h",
            (SELECT count(*)::int FROM agent_events a WHERE a.agent_id = e.id AND a.methodology_version = $2 AND a.kind <> 'fee_paid' AND ${inWindow("7d", "a.ts")}) AS "txCount7d",
            (SELECT coalesce(sum(amount_wei), 0)::text FROM agent_events a WHERE a.agent_id = e.id AND a.methodology_version = $2 AND a.kind <> 'fee_paid' AND ${inWindow("7d", "a.ts")}) AS "amountSumWei7d",
            ${tokensOf(`agent_events a WHERE a.agent_id = e.id AND a.methodology_version = $2 AND a.kind <> 'fee_paid' AND ${inWindow("24h", "a.ts")}`)} AS "byToken24h",
            ${tokensOf(`agent_events a WHERE a.agent_id = e.id AND a.methodology_version = $2 AND a.kind <> 'fee_paid' AND ${inWindow("7d", "a.ts")}`)} AS "byToken7d",
            (SELECT ts FROM agent_events a WHERE a.agent_id = e.id AND a.methodology_version = $2 ORDER BY a.id DESC LIMIT 1) AS "lastEventAt"
     FROM entities e WHERE (e.id LIKE '%-mpp') = $3 AND e.kind <> 'escrow'`, // a session escrow is neither (registry v3)
    [now, version, kind === "service"],
  );
  return rows
    .map((r) => ({ ...r, lastEventAt: r.lastEventAt ? (r.lastEventAt as Date).toISOString() : null }))
    .sort((a, b) => {
      const d = BigInt(b.amountSumWei7d) - BigInt(a.amountSumWei7d);
      return d !== 0n ? (d > 0n ? 1 : -1) : a.id < b.id ? -1 : 1;
    });
}

/** Totals, trend and (gateway) providers of one entity, computed from rows. */
export async function bruteEntityDetail(db: Q, now: Date, id: string, version = "v0.1") {
  const totals = (
    await db.query(
      `SELECT count(*) FILTER (WHERE kind <> 'fee_paid')::int AS "txCount", coalesce(sum(amount_wei) FILTER (WHERE kind <> 'fee_paid'), 0)::text AS "amountSumWei",
            count(*) FILTER (WHERE kind = 'fee_paid')::int AS "feeCount", coalesce(sum(amount_wei) FILTER (WHERE kind = 'fee_paid'), 0)::text AS "feeSumWei",
            ${tokensOf("agent_events WHERE agent_id = $1 AND methodology_version = $2 AND kind <> 'fee_paid'")} AS "byToken",
            ${tokensOf("agent_events WHERE agent_id = $1 AND methodology_version = $2 AND kind = 'fee_paid'")} AS "feesByToken"
     FROM agent_events WHERE agent_id = $1 AND methodology_version = $2`,
      [id, version],
    )
  ).rows[0];
  const trend = (
    await db.query(
      `SELECT to_char(d, 'YYYY-MM-DD') AS day,
            (SELECT count(*)::int FROM agent_events WHERE agent_id = $2 AND methodology_version = $3 AND kind <> 'fee_paid' AND date_trunc('day', ts, 'UTC') = d) AS "txCount",
            (SELECT coalesce(sum(amount_wei), 0)::text FROM agent_events WHERE agent_id = $2 AND methodology_version = $3 AND kind <> 'fee_paid' AND date_trunc('day', ts, 'UTC') = d) AS "amountSumWei",
            ${tokensOf("agent_events WHERE agent_id = $2 AND methodology_version = $3 AND kind <> 'fee_paid' AND date_trunc('day', ts, 'UTC') = d")} AS "byToken"
     FROM generate_series(date_trunc('day', $1::timestamptz, 'UTC') - interval '29 days', date_trunc('day', $1::timestamptz, 'UTC'), interval '1 day') AS g(d)
     ORDER BY d`,
      [now, id, version],
    )
  ).rows;
  const key = "CASE WHEN routed_to_address <> '' THEN routed_to_address ELSE routed_fingerprint END";
  const providers = (
    await db.query(
      `SELECT y.*, z."firstSeenAt", z."lastSeenAt" FROM (${withProviderLabels(`SELECT g.*, ${tokensOf(`${PAYMENTS.replace("$2", "$1")} b WHERE (CASE WHEN b.routed_to_address <> '' THEN b.routed_to_address ELSE b.routed_fingerprint END) = g.key`)} AS "byToken"
     FROM (SELECT ${key} AS key, CASE WHEN routed_to_address <> '' THEN 'address' ELSE 'fingerprint' END AS pattern,
            count(*)::int AS "txCount", sum(amount_wei)::text AS "amountSumWei",
            row_number() OVER (ORDER BY sum(amount_wei) DESC, count(*) DESC, ${key}) AS ord
     FROM ${PAYMENTS.replace("$2", "$1")} p WHERE routed_to_address <> '' OR routed_fingerprint IS NOT NULL
     GROUP BY 1, 2) g`)}) y
     JOIN (SELECT ${key} AS key, min(date_trunc('hour', ts, 'UTC')) AS "firstSeenAt", max(date_trunc('hour', ts, 'UTC')) AS "lastSeenAt"
           FROM ${PAYMENTS.replace("$2", "$1")} p WHERE routed_to_address <> '' OR routed_fingerprint IS NOT NULL GROUP BY 1) z ON z.key = y.key
     ORDER BY y.ord`,
      [version],
    )
  ).rows.map(({ ord: _ord, ...r }) => ({ ...r, firstSeenAt: (r.firstSeenAt as Date).toISOString(), lastSeenAt: (r.lastSeenAt as Date).toISOString() }));
  return { totals, trend, providers };
}
