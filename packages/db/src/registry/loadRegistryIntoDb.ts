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
  /** Registry v3. */
  serverIds: number;
  escrows: number;
  clientLabels: number;
  deactivated: string[];
}

/**
 * Upserts a parsed registry file, idempotently: loading the same file twice changes nothing.
 * `source` names the file; entities that came from that file earlier and are no longer in it are
 * deactivated (never deleted: their ledger rows keep pointing at them). Entities from other sources
 * (e.g. added with the CLI) are left alone. Registry v3: escrows arrive as entities of kind `escrow` (parseRegistry)
 * and rows of `escrows`; server ids, escrows and client labels that the same file declared earlier and no longer
 * declares are deleted (a dropped server id must stop attributing payments). One transaction on a connection of `pool`.
 */
export async function loadRegistryIntoDb(pool: pg.Pool, registry: Registry, source: string): Promise<RegistryLoadResult> {
  return inTransaction(pool, async (tx) => {
    for (const e of registry.entities) {
      await tx.query(
        `INSERT INTO entities (id, label, category, kind, active, track_fees, source, categories, service_url, fact_source) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT (id) DO UPDATE SET label = $2, category = $3, kind = $4, active = $5, track_fees = $6, source = $7, categories = $8, service_url = $9,
           fact_source = $10, updated_at = now()`,
        [e.id, e.label, e.category, e.kind, e.active, e.trackFees, source, e.categories, e.serviceUrl, e.source],
      );
      for (const address of e.wallets) {
        await tx.query(
          "INSERT INTO entity_wallets (address, entity_id, fact_source) VALUES ($1, $2, $3) ON CONFLICT (address) DO UPDATE SET entity_id = $2, fact_source = $3",
          [address, e.id, e.walletSources[address] ?? null],
        );
      }
      for (const s of e.serverIds) {
        await tx.query(
          `INSERT INTO server_ids (fingerprint, entity_id, source, value, fact_source, registry_source) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (fingerprint) DO UPDATE SET entity_id = $2, source = $3, value = $4, fact_source = $5, registry_source = $6, updated_at = now()`,
          [s.fingerprint, e.id, s.from, s.value, s.source, source],
        );
      }
    }
    await tx.query("DELETE FROM server_ids WHERE registry_source = $1 AND fingerprint <> ALL($2::text[])", [
      source,
      registry.entities.flatMap((e) => e.serverIds.map((s) => s.fingerprint)),
    ]);
    for (const x of registry.escrows) {
      await tx.query(
        `INSERT INTO escrows (address, entity_id, abi, label, token_address, fact_source, source) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (address) DO UPDATE SET entity_id = $2, abi = $3, label = $4, token_address = $5, fact_source = $6, source = $7, updated_at = now()`,
        [x.address, x.id, x.abi, x.label, x.token, x.source, source],
      );
    }
    await tx.query("DELETE FROM escrows WHERE source = $1 AND address <> ALL($2::text[])", [source, registry.escrows.map((x) => x.address)]);
    for (const l of registry.clientLabels) {
      await tx.query(
        `INSERT INTO client_labels (fingerprint, label, fact_source, source) VALUES ($1, $2, $3, $4)
         ON CONFLICT (fingerprint) DO UPDATE SET label = $2, fact_source = $3, source = $4, updated_at = now()`,
        [l.fingerprint, l.label, l.source, source],
      );
    }
    await tx.query("DELETE FROM client_labels WHERE source = $1 AND fingerprint <> ALL($2::text[])", [source, registry.clientLabels.map((l) => l.fingerprint)]);
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
      serverIds: registry.entities.reduce((n, e) => n + e.serverIds.length, 0),
      escrows: registry.escrows.length,
      clientLabels: registry.clientLabels.length,
      deactivated: stale.map((s) => s.id),
    };
  });
}
