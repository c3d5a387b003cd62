import type { Registry } from "@agent-ledger/core";
import type { PrismaClient } from "../../generated/client.ts";

export interface RegistryLoadResult {
  entities: number;
  wallets: number;
  addressLabels: number;
  fingerprintLabels: number;
  settlementContracts: number;
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
      await tx.settlementContract.upsert({ where: { address: c.address }, create: { ...c, source }, update: { label: c.label, source } });
    }
    return {
      entities: registry.entities.length,
      wallets: registry.entities.reduce((n, e) => n + e.wallets.length, 0),
      addressLabels: registry.addressLabels.length,
      fingerprintLabels: registry.fingerprintLabels.length,
      settlementContracts: registry.settlementContracts.length,
      deactivated: stale.map((s) => s.id),
    };
  }, { timeout: 60_000 });
}
