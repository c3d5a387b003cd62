import { SETTLEMENT_TOPIC, type MatchContext, type SettlementEventDefinition, type TokenInfo, type WatchedEntity } from "@agent-ledger/core";
import type pg from "pg";

/**
 * The matcher's view of the registry: wallets of active entities, labels, trusted escrows and (methodology v0.2) the
 * token allowlist, settlement event definitions and fingerprint → provider links; (registry v3) the server ids of
 * active entities and the session escrows of active escrow entities, each escrow's address also in `wallets` → its
 * escrow entity. One WatchedEntity object per entity id across the maps. `explorerBaseUrl` as a string is used as is;
 * as `{ override, fallback }` the override wins, else the newest loaded registry file's `explorer_base_url`, else the
 * fallback (docs/methodology.md, rule 9).
 */
export async function loadMatchContext(db: pg.Pool | pg.ClientBase, explorerBaseUrl: string | { override?: string; fallback: string }): Promise<MatchContext> {
  // One query after another: `db` may be a single connection, which runs one query at a time anyway.
  const wallets = await db.query<{ address: string; id: string; label: string; category: string; track_fees: boolean }>(
    "SELECT w.address, e.id, e.label, e.category, e.track_fees FROM entity_wallets w JOIN entities e ON e.id = w.entity_id WHERE e.active",
  );
  const addressLabels = await db.query<{ address: string; label: string; category: string | null }>("SELECT address, label, category FROM address_labels");
  const fingerprintLabels = await db.query<{ fingerprint: string; label: string; category: string | null; provider_address: string | null }>(
    "SELECT fingerprint, label, category, provider_address FROM fingerprint_labels",
  );
  const settlementContracts = await db.query<{ address: string; event_topic0: string | null; provider_topic: number; event_verified: boolean }>(
    "SELECT address, event_topic0, provider_topic, event_verified FROM settlement_contracts",
  );
  const tokens = await db.query<{ address: string; symbol: string; decimals: number; currency: string }>(
    "SELECT address, symbol, decimals, currency FROM tokens",
  );
  type EntityRow = { id: string; label: string; category: string; track_fees: boolean };
  const serverIds = await db.query<EntityRow & { fingerprint: string; source: string }>(
    "SELECT s.fingerprint, s.source, e.id, e.label, e.category, e.track_fees FROM server_ids s JOIN entities e ON e.id = s.entity_id WHERE e.active",
  );
  const escrows = await db.query<EntityRow & { address: string; abi: string }>(
    "SELECT x.address, x.abi, e.id, e.label, e.category, e.track_fees FROM escrows x JOIN entities e ON e.id = x.entity_id WHERE e.active",
  );
  const source =
    typeof explorerBaseUrl === "string" || explorerBaseUrl.override
      ? null
      : await db.query<{ explorer_base_url: string }>(
          "SELECT explorer_base_url FROM registry_sources WHERE explorer_base_url IS NOT NULL ORDER BY loaded_at DESC LIMIT 1",
        );
  const entities = new Map<string, WatchedEntity>();
  const entityOf = (row: EntityRow): WatchedEntity => {
    let entity = entities.get(row.id);
    if (!entity) {
      entity = { id: row.id, label: row.label, category: row.category, trackFees: row.track_fees };
      entities.set(row.id, entity);
    }
    return entity;
  };
  const byWallet = new Map<string, WatchedEntity>();
  for (const w of wallets.rows) byWallet.set(w.address.toLowerCase(), entityOf(w));
  const byServerId: NonNullable<MatchContext["serverIds"]> = new Map(
    serverIds.rows.map((s) => [s.fingerprint.toLowerCase(), { entity: entityOf(s), source: s.source === "realm" ? "realm" : "host" }] as const),
  );
  const byEscrow: NonNullable<MatchContext["escrows"]> = new Map(
    escrows.rows.map((x) => [x.address.toLowerCase(), { abi: x.abi === "precompile" ? "precompile" : "legacy", entity: entityOf(x) }] as const),
  );
  // The escrow's own address is its entity's wallet (the loader writes it so); said here too, so no stale wallet row wins.
  for (const [address, escrow] of byEscrow) byWallet.set(address, escrow.entity);
  return {
    wallets: byWallet,
    addressLabels: new Map(addressLabels.rows.map((l) => [l.address.toLowerCase(), { label: l.label, category: l.category }])),
    fingerprintLabels: new Map(fingerprintLabels.rows.map((l) => [l.fingerprint.toLowerCase(), { label: l.label, category: l.category }])),
    settlementContracts: new Set(settlementContracts.rows.map((c) => c.address.toLowerCase())),
    explorerBaseUrl:
      typeof explorerBaseUrl === "string" ? explorerBaseUrl : (explorerBaseUrl.override ?? source?.rows[0]?.explorer_base_url ?? explorerBaseUrl.fallback),
    tokens: new Map<string, TokenInfo>(tokens.rows.map((t) => [t.address.toLowerCase(), { symbol: t.symbol, decimals: t.decimals, currency: t.currency }])),
    settlementEvents: new Map<string, SettlementEventDefinition>(
      settlementContracts.rows.map((c) => [
        c.address.toLowerCase(),
        { topic0: (c.event_topic0 ?? SETTLEMENT_TOPIC).toLowerCase(), providerTopic: c.provider_topic === 3 ? 3 : 2, verified: c.event_verified },
      ]),
    ),
    fingerprintProviders: new Map(
      fingerprintLabels.rows.flatMap((l) => (l.provider_address ? [[l.fingerprint.toLowerCase(), l.provider_address.toLowerCase()] as [string, string]] : [])),
    ),
    serverIds: byServerId,
    escrows: byEscrow,
  };
}
