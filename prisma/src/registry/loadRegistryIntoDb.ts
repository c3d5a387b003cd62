import type { Registry } from "@agent-ledger/core";
import type { PrismaClient } from "../../generated/client.ts";

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
 * (e.g. added with the CLI) are left alone.
 */
export async function loadRegistryIntoDb(prisma: PrismaClient, registry: Registry, source: string): Promise<RegistryLoadResult> {
  return prisma.$transaction(async (tx) => {
    for (const e of registry.entities) {
      const data = { label: e.label, category: e.category, kind: e.kind, active: e.active, trackFees: e.trackFees, source };
      await tx.entity.upsert({ where: { id: e.id }, create: { id: e.id, ...data }, update: data });
      for (const address of e.wallets) {
        await tx.entityWallet.upsert({ where: { address }, create: { address, entityId: e.id }, update: { entityId: e.id } });
      }
    }
    const ids = registry.entities.map((e) => e.id);
    const stale = await tx.entity.findMany({ where: { source, active: true, id: { notIn: ids } }, select: { id: true } });
    if (stale.length) await tx.entity.updateMany({ where: { id: { in: stale.map((s) => s.id) } }, data: { active: false } });
    for (const l of registry.addressLabels) {
      const data = { label: l.label, category: l.category, source };
      await tx.addressLabel.upsert({ where: { address: l.address }, create: { address: l.address, ...data }, update: data });
    }
    for (const l of registry.fingerprintLabels) {
      const data = { label: l.label, category: l.category, providerAddress: l.providerAddress, source };
      await tx.fingerprintLabel.upsert({ where: { fingerprint: l.fingerprint }, create: { fingerprint: l.fingerprint, ...data }, update: data });
    }
    for (const c of registry.settlementContracts) {
      // A contract without a declared event gets the defaults (the devnet Settlement, provider topic 2, unverified).
      const data = { label: c.label, source, eventTopic0: c.event?.topic0 ?? null, providerTopic: c.event?.providerTopic ?? 2, eventVerified: c.event?.verified ?? false };
      await tx.settlementContract.upsert({ where: { address: c.address }, create: { address: c.address, ...data }, update: data });
    }
    for (const t of registry.tokens) {
      const data = { symbol: t.symbol, decimals: t.decimals, currency: t.currency, source };
      await tx.token.upsert({ where: { address: t.address }, create: { address: t.address, ...data }, update: data });
    }
    const meta = { network: registry.network, registryVersion: registry.registryVersion, explorerBaseUrl: registry.explorerBaseUrl, loadedAt: new Date() };
    await tx.registrySource.upsert({ where: { source }, create: { source, ...meta }, update: meta });
    return {
      entities: registry.entities.length,
      wallets: registry.entities.reduce((n, e) => n + e.wallets.length, 0),
      addressLabels: registry.addressLabels.length,
      fingerprintLabels: registry.fingerprintLabels.length,
      settlementContracts: registry.settlementContracts.length,
      tokens: registry.tokens.length,
      deactivated: stale.map((s) => s.id),
    };
  }, { timeout: 60_000 });
}
