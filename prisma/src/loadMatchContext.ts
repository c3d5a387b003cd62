import { SETTLEMENT_TOPIC, type MatchContext, type SettlementEventDefinition, type TokenInfo, type WatchedEntity } from "@agent-ledger/core";
import type { PrismaClient } from "../generated/client.ts";

/**
 * The matcher's view of the registry: wallets of active entities, labels, trusted escrows and (methodology v0.2) the
 * token allowlist, settlement event definitions and fingerprint → provider links. `explorerBaseUrl` as a string is
 * used as is; as `{ override, fallback }` the override wins, else the newest loaded registry file's
 * `explorer_base_url`, else the fallback (docs/methodology.md, rule 9).
 */
export async function loadMatchContext(prisma: PrismaClient, explorerBaseUrl: string | { override?: string; fallback: string }): Promise<MatchContext> {
  const [wallets, addressLabels, fingerprintLabels, settlementContracts, tokens, source] = await Promise.all([
    prisma.entityWallet.findMany({ where: { entity: { active: true } }, include: { entity: true } }),
    prisma.addressLabel.findMany(),
    prisma.fingerprintLabel.findMany(),
    prisma.settlementContract.findMany(),
    prisma.token.findMany(),
    typeof explorerBaseUrl === "string" || explorerBaseUrl.override
      ? null
      : prisma.registrySource.findFirst({ where: { explorerBaseUrl: { not: null } }, orderBy: { loadedAt: "desc" } }),
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
    explorerBaseUrl: typeof explorerBaseUrl === "string" ? explorerBaseUrl : (explorerBaseUrl.override ?? source?.explorerBaseUrl ?? explorerBaseUrl.fallback),
    tokens: new Map<string, TokenInfo>(tokens.map((t) => [t.address.toLowerCase(), { symbol: t.symbol, decimals: t.decimals, currency: t.currency }])),
    settlementEvents: new Map<string, SettlementEventDefinition>(
      settlementContracts.map((c) => [
        c.address.toLowerCase(),
        { topic0: (c.eventTopic0 ?? SETTLEMENT_TOPIC).toLowerCase(), providerTopic: c.providerTopic === 3 ? 3 : 2, verified: c.eventVerified },
      ]),
    ),
    fingerprintProviders: new Map(
      fingerprintLabels.flatMap((l) => (l.providerAddress ? [[l.fingerprint.toLowerCase(), l.providerAddress.toLowerCase()] as [string, string]] : [])),
    ),
  };
}
