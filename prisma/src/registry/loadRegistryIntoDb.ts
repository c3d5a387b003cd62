import type { Registry } from "@agent-ledger/core";
import type pg from "pg";
import { inTransaction } from "../inTransaction.ts";

export interface RegistryLoadResult {
  entities: number;
  wallets: number;
  addressLabels: number;
  fingerprintLabels: number;
  settlementContracts: number;
  tokens: number;
  deactivated: string[];
}

/**
 * Upserts a parsed registry file, idempotently: loading the same file twice changes nothing.
 * `source` names the file; entities that came from that file earlier and are no longer in it are
 * deactivated (never deleted: their ledger rows keep pointing at them). Entities from other sources
 * (e.g. added with the CLI) are left alone. One transaction on a connection of `pool`.
 */
export async function loadRegistryIntoDb(pool: pg.Pool, registry: Registry, source: string): Promise<RegistryLoadResult> {
  return inTransaction(pool, async (tx) => {
    for (const e of registry.entities) {
      await tx.query(
        `INSERT INTO entities (id, label, category, kind, active, track_fees, source) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (id) DO UPDATE SET label = $2, category = $3, kind = $4, active = $5, track_fees = $6, source = $7, updated_at = now()`,
        [e.id, e.label, e.category, e.kind, e.active, e.trackFees, source],
      );
      for (const address of e.wallets) {
        await tx.query(
          "INSERT INTO entity_wallets (address, entity_id) VALUES ($1, $2) ON CONFLICT (address) DO UPDATE SET entity_id = $2",
          [address, e.id],
        );
      }
    }
    const { rows: stale } = await tx.query<{ id: string }>(
      "UPDATE entities SET active = false, updated_at = now() WHERE source = $1 AND active AND id <> ALL($2::text[]) RETURNING id",
      [source, registry.entities.map((e) => e.id)],
    );
    for (const l of registry.addressLabels) {
      await tx.query(
        `INSERT INTO address_labels (address, label, category, source) VALUES ($1, $2, $3, $4)
         ON CONFLICT (address) DO UPDATE SET label = $2, category = $3, source = $4, updated_at = now()`,
        [l.address, l.label, l.category, source],
      );
    }
    for (const l of registry.fingerprintLabels) {
      await tx.query(
        `INSERT INTO fingerprint_labels (fingerprint, label, category, provider_address, source) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (fingerprint) DO UPDATE SET label = $2, category = $3, provider_address = $4, source = $5, updated_at = now()`,
        [l.fingerprint, l.label, l.category, l.providerAddress, source],
      );
    }
    for (const c of registry.settlementContracts) {
      // A contract without a declared event gets the defaults (the devnet Settlement, provider topic 2, unverified).
      await tx.query(
        `INSERT INTO settlement_contracts (address, label, source, event_topic0, provider_topic, event_verified) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (address) DO UPDATE SET label = $2, source = $3, event_topic0 = $4, provider_topic = $5, event_verified = $6`,
        [c.address, c.label, source, c.event?.topic0 ?? null, c.event?.providerTopic ?? 2, c.event?.verified ?? false],
      );
    }
    for (const t of registry.tokens) {
      await tx.query(
        `INSERT INTO tokens (address, symbol, decimals, currency, source) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (address) DO UPDATE SET symbol = $2, decimals = $3, currency = $4, source = $5, updated_at = now()`,
        [t.address, t.symbol, t.decimals, t.currency, source],
      );
    }
    await tx.query(
      `INSERT INTO registry_sources (source, network, registry_version, explorer_base_url, loaded_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (source) DO UPDATE SET network = $2, registry_version = $3, explorer_base_url = $4, loaded_at = now()`,
      [source, registry.network, registry.registryVersion, registry.explorerBaseUrl],
    );
    return {
      entities: registry.entities.length,
      wallets: registry.entities.reduce((n, e) => n + e.wallets.length, 0),
      addressLabels: registry.addressLabels.length,
      fingerprintLabels: registry.fingerprintLabels.length,
      settlementContracts: registry.settlementContracts.length,
      tokens: registry.tokens.length,
      deactivated: stale.map((s) => s.id),
    };
  });
}
