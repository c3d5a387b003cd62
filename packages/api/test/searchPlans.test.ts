import { createPgPool } from "@agent-ledger/db";
import { createTestDatabase } from "@agent-ledger/db/testing";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../src/services/createServices.ts";
import type { Db } from "../src/services/types.ts";

// Search and paginated lists stay fast on a large ledger: with 50k labelled addresses, 5k entities and 300k rows,
// the statements the services send are planned on the indexes of migration 20261122020000_search_indexes
// (trigram GIN on labels/ids, primary-key ranges for address prefixes, (agent_id, id) for an entity's newest rows).

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPgPool(db.url, { max: 2 });
  await pool.query(`
    INSERT INTO entities (id, label, category, kind, source) SELECT 'agent-' || g, 'Agent number ' || g, 'agent', 'agent', 't' FROM generate_series(1, 5000) g;
    INSERT INTO entities (id, label, category, kind, source) VALUES ('zebra-mpp', 'Zebra inference', 'service', 'service', 't');
    INSERT INTO entity_wallets (address, entity_id) SELECT '0x' || lpad(to_hex(g), 40, '0'), 'agent-' || g FROM generate_series(1, 5000) g;
    INSERT INTO address_labels (address, label, source) SELECT '0x' || lpad(to_hex(g + 100000), 40, '0'), 'Label ' || md5(g::text), 't' FROM generate_series(1, 50000) g;
    INSERT INTO address_labels (address, label, source) VALUES ('0x00000000000000000000000000000000000ace00', 'Acme inference provider', 't');
    INSERT INTO agent_events (ts, agent_id, agent_label, agent_category, counterparty_address, counterparty_label, kind, amount_wei, token_address,
                              tx_hash, log_index, source_block, methodology_version, explorer_url)
    SELECT now() - (g || ' seconds')::interval, 'agent-' || (g % 5000 + 1), 'A', 'agent',
           CASE WHEN g % 3 = 0 THEN '0xfeec000000000000000000000000000000000000' ELSE '0x' || lpad(to_hex(g % 20000), 40, '0') END,
           '', CASE WHEN g % 3 = 0 THEN 'fee_paid' ELSE 'payment_sent' END, g, '0x20c0000000000000000000000000000000000000',
           '0x' || lpad(to_hex(g), 64, '0'), 0, g, 'v0.1', 'x'
    FROM generate_series(1, 300000) g;
  `);
  await pool.query("VACUUM ANALYZE entities, entity_wallets, address_labels, agent_events");
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

/** Runs a service call, then EXPLAINs (and executes) every statement it sent; returns the plans as JSON text. */
async function plansOf(call: (services: ReturnType<typeof createServices>) => Promise<unknown>): Promise<string[]> {
  const sent: [string, unknown[]][] = [];
  const recording: Db = {
    // Services send plain text + params, or a named (prepared) statement as { name, text, values }.
    query: ((textOrConfig: string | { text: string; values?: unknown[] }, params?: unknown[]) => {
      if (typeof textOrConfig === "string") sent.push([textOrConfig, params ?? []]);
      else sent.push([textOrConfig.text, textOrConfig.values ?? []]);
      return (pool.query as (a: unknown, b?: unknown) => Promise<unknown>)(textOrConfig, params);
    }) as Db["query"],
  };
  await call(createServices({ db: recording }));
  const plans: string[] = [];
  for (const [text, params] of sent) {
    const { rows } = await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
    plans.push(JSON.stringify(rows[0]["QUERY PLAN"]));
  }
  return plans;
}

const page = { limit: 20, after: null };

describe("query plans on a large ledger", () => {
  it("entity search by label uses the trigram indexes", async () => {
    const [plan] = await plansOf((s) => s.searchEntities("zebra", page));
    expect(plan).toMatch(/entities_(label|id)_trgm_idx/);
    expect(plan).not.toMatch(/"Seq Scan"/);
  });

  it("address-label search by label uses the trigram index; by address prefix the primary key", async () => {
    expect((await plansOf((s) => s.searchAddresses("inference", page)))[0]).toMatch(/address_labels_label_trgm_idx/);
    const [byPrefix] = await plansOf((s) => s.searchAddresses("0x00000000000000000000000000000000000ace", page));
    expect(byPrefix).toMatch(/address_labels_pkey/);
    expect(byPrefix).not.toMatch(/"Seq Scan"/);
  });

  it("wallet prefix search uses the entity_wallets primary key", async () => {
    const [plan] = await plansOf((s) => s.searchEntities("0x00000000000000000000000000000000000013", page));
    expect(plan).toMatch(/entity_wallets_pkey/);
  });

  it("events by counterparty (even the FeeManager, on a third of all rows) read one page, not the whole set", async () => {
    const [plan] = await plansOf((s) => s.searchEvents("0xfeec000000000000000000000000000000000000", page));
    expect(plan).not.toMatch(/"Seq Scan"/);
    const actualRows = [...plan!.matchAll(/"Actual Rows":(\d+)/g)].map((m) => Number(m[1]));
    expect(Math.max(...actualRows)).toBeLessThanOrEqual(21); // reads one page, not the ~100k fee rows
  });

  it("an entity's pages and last event time read the (agent_id, id) index", async () => {
    const [page1] = await plansOf((s) => s.listEntityEvents("agent-7", { limit: 50, before: 200_000n }));
    const [lastAt] = await plansOf((s) => s.loadLastEventAt(["agent-7", "agent-8"]));
    for (const plan of [page1, lastAt]) {
      expect(plan).toMatch(/agent_events_agent_id_id_idx/);
      expect(plan).not.toMatch(/"Seq Scan"/);
    }
  });

  it("search answers quickly", async () => {
    const s = createServices({ db: pool });
    const started = performance.now();
    for (const q of ["zebra", "inference", "0x00000000000000000000000000000000000ace", "0xfeec000000000000000000000000000000000000", "Agent number 42"])
      await s.search(q);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
