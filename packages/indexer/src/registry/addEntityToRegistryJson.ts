import { parseRegistry } from "@agent-ledger/core";

export interface NewEntity {
  id: string;
  label: string;
  category: string;
  wallets: string[];
  trackFees?: boolean;
  active?: boolean;
}

/**
 * Adds (or replaces, by id) one entity in a registry JSON document and bumps `registry_version`.
 * The whole result is validated before it is returned, so an invalid entity never reaches the file.
 */
export function addEntityToRegistryJson(document: Record<string, unknown>, entity: NewEntity): Record<string, unknown> {
  const entities = Array.isArray(document.entities) ? [...(document.entities as Record<string, unknown>[])] : [];
  const entry = {
    id: entity.id,
    label: entity.label,
    category: entity.category,
    active: entity.active ?? true,
    track_fees: entity.trackFees ?? false,
    wallets: entity.wallets.map((w) => w.toLowerCase()),
  };
  const at = entities.findIndex((e) => e.id === entity.id);
  if (at >= 0) entities[at] = entry;
  else entities.push(entry);
  const version = typeof document.registry_version === "number" ? document.registry_version : 0;
  const next = { ...document, registry_version: version + 1, entities };
  parseRegistry(next);
  return next;
}
