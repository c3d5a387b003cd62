import type { MatchContext, WatchedEntity } from "@agent-ledger/core";
import type { PrismaClient } from "../generated/client.ts";

/** The matcher's view of the registry: wallets of active entities, labels, trusted escrows. */
export async function loadMatchContext(prisma: PrismaClient, explorerBaseUrl: string): Promise<MatchContext> {
  const [wallets, addressLabels, fingerprintLabels, settlementContracts] = await Promise.all([
    prisma.entityWallet.findMany({ where: { entity: { active: true } }, include: { entity: true } }),
    prisma.addressLabel.findMany(),
    prisma.fingerprintLabel.findMany(),
    prisma.settlementContract.findMany(),
  ]);
  const entities = new Map<string, WatchedEntity>();
  const byWallet = new Map<string, WatchedEntity>();
  for (const w of wallets) {
    let entity = entities.get(w.entityId);
    if (!entity) {
      entity = { id: w.entity.id, label: w.entity.label, category: w.entity.category, trackFees: w.entity.trackFees };
      entities.set(w.entityId, entity);
    }
    byWallet.set(w.address.toLowerCase(), entity);
  }
  return {
    wallets: byWallet,
    addressLabels: new Map(addressLabels.map((l) => [l.address.toLowerCase(), { label: l.label, category: l.category }])),
    fingerprintLabels: new Map(fingerprintLabels.map((l) => [l.fingerprint.toLowerCase(), { label: l.label, category: l.category }])),
    settlementContracts: new Set(settlementContracts.map((c) => c.address.toLowerCase())),
    explorerBaseUrl,
  };
}
