import { isAddress } from "../address/normalizeAddress.ts";
import { InvalidRegistryError } from "../errors.ts";

export interface RegistryEntity {
  id: string;
  label: string;
  category: string;
  /** `service` when the id ends in `-mpp` (curated), else `agent`. */
  kind: "service" | "agent";
  active: boolean;
  trackFees: boolean;
  wallets: string[];
}

export interface Registry {
  registryVersion: number;
  network: string;
  entities: RegistryEntity[];
  addressLabels: { address: string; label: string; category: string | null }[];
  fingerprintLabels: { fingerprint: string; label: string; category: string | null; providerAddress: string | null }[];
  settlementContracts: { address: string; label: string; event: RegistrySettlementEvent | null }[];
  /** Registry v2: the token allowlist (methodology v0.2 rule 1). */
  tokens: RegistryToken[];
  /** Registry v2: the block explorer of this network (methodology v0.2 rule 9); null when not given. */
  explorerBaseUrl: string | null;
}

export interface RegistryToken {
  address: string;
  symbol: string;
  decimals: number;
  currency: string;
}

/** Registry v2: how a settlement contract's event is read (methodology v0.2 rule 7). */
export interface RegistrySettlementEvent {
  topic0: string;
  providerTopic: 2 | 3;
  verified: boolean;
}

/** The first registry file schema version that may use `tokens`, `settlement_contracts[].event`, `explorer_base_url`. */
export const REGISTRY_V2 = 2;

export const ENTITY_ID = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const FINGERPRINT = /^0x[0-9a-fA-F]{20}$/;
const TOPIC = /^0x[0-9a-fA-F]{64}$/;

export function entityKind(id: string): "service" | "agent" {
  return id.endsWith("-mpp") ? "service" : "agent";
}

/**
 * Validates a registry file (registry/*.json) and normalizes it: addresses lowercase, kinds derived.
 * Throws InvalidRegistryError listing every problem found.
 */
export function parseRegistry(input: unknown): Registry {
  const problems: string[] = [];
  const obj = (v: unknown, at: string): Record<string, unknown> => {
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    problems.push(`${at} must be an object`);
    return {};
  };
  const arr = (v: unknown, at: string): unknown[] => {
    if (v === undefined) return [];
    if (Array.isArray(v)) return v;
    problems.push(`${at} must be an array`);
    return [];
  };
  const str = (v: unknown, at: string): string => {
    if (typeof v === "string" && v.trim() !== "") return v;
    problems.push(`${at} must be a non-empty string`);
    return "";
  };
  const optStr = (v: unknown, at: string): string | null => (v === undefined || v === null ? null : str(v, at));
  const bool = (v: unknown, at: string, fallback: boolean): boolean => {
    if (v === undefined) return fallback;
    if (typeof v === "boolean") return v;
    problems.push(`${at} must be true or false`);
    return fallback;
  };
  const addr = (v: unknown, at: string): string => {
    if (isAddress(v)) return v.toLowerCase();
    problems.push(`${at} must be an address (0x + 40 hex)`);
    return "";
  };

  const root = obj(input, "registry");
  const registryVersion = root.registry_version;
  if (typeof registryVersion !== "number" || !Number.isInteger(registryVersion) || registryVersion < 1) problems.push("registry_version must be a positive integer");
  const network = str(root.network, "network");

  const seenIds = new Set<string>();
  const walletOwner = new Map<string, string>();
  const entities = arr(root.entities, "entities").map((raw, i): RegistryEntity => {
    const e = obj(raw, `entities[${i}]`);
    const id = str(e.id, `entities[${i}].id`);
    if (id && !ENTITY_ID.test(id)) problems.push(`entities[${i}].id "${id}" must be lowercase letters, digits and dashes`);
    if (seenIds.has(id)) problems.push(`entities[${i}].id "${id}" is duplicated`);
    seenIds.add(id);
    const wallets = arr(e.wallets, `entities[${i}].wallets`).map((w, j) => addr(w, `entities[${i}].wallets[${j}]`));
    for (const w of wallets) {
      const owner = walletOwner.get(w);
      if (w && owner !== undefined) problems.push(`wallet ${w} belongs to both "${owner}" and "${id}"`);
      walletOwner.set(w, id);
    }
    return {
      id,
      label: str(e.label, `entities[${i}].label`),
      category: str(e.category, `entities[${i}].category`),
      kind: entityKind(id),
      active: bool(e.active, `entities[${i}].active`, true),
      trackFees: bool(e.track_fees, `entities[${i}].track_fees`, false),
      wallets,
    };
  });
  const addressLabels = arr(root.address_labels, "address_labels").map((raw, i) => {
    const l = obj(raw, `address_labels[${i}]`);
    return { address: addr(l.address, `address_labels[${i}].address`), label: str(l.label, `address_labels[${i}].label`), category: optStr(l.category, `address_labels[${i}].category`) };
  });
  const fingerprintLabels = arr(root.fingerprint_labels, "fingerprint_labels").map((raw, i) => {
    const l = obj(raw, `fingerprint_labels[${i}]`);
    const fp = l.fingerprint;
    if (typeof fp !== "string" || !FINGERPRINT.test(fp)) problems.push(`fingerprint_labels[${i}].fingerprint must be 0x + 20 hex characters`);
    return {
      fingerprint: typeof fp === "string" ? fp.toLowerCase() : "",
      label: str(l.label, `fingerprint_labels[${i}].label`),
      category: optStr(l.category, `fingerprint_labels[${i}].category`),
      providerAddress: l.provider_address === undefined || l.provider_address === null ? null : addr(l.provider_address, `fingerprint_labels[${i}].provider_address`),
    };
  });
  const v2 = typeof registryVersion === "number" && registryVersion >= REGISTRY_V2;
  const needsV2 = (field: string) => {
    if (!v2) problems.push(`${field} needs registry_version ${REGISTRY_V2} or later`);
  };
  const settlementContracts = arr(root.settlement_contracts, "settlement_contracts").map((raw, i) => {
    const c = obj(raw, `settlement_contracts[${i}]`);
    let event: RegistrySettlementEvent | null = null;
    if (c.event !== undefined) {
      const at = `settlement_contracts[${i}].event`;
      needsV2(at);
      const e = obj(c.event, at);
      if (typeof e.topic0 !== "string" || !TOPIC.test(e.topic0)) problems.push(`${at}.topic0 must be 0x + 64 hex characters`);
      if (e.provider_topic !== 2 && e.provider_topic !== 3) problems.push(`${at}.provider_topic must be 2 or 3`);
      event = {
        topic0: typeof e.topic0 === "string" ? e.topic0.toLowerCase() : "",
        providerTopic: e.provider_topic === 3 ? 3 : 2,
        verified: bool(e.verified, `${at}.verified`, false),
      };
    }
    return { address: addr(c.address, `settlement_contracts[${i}].address`), label: str(c.label, `settlement_contracts[${i}].label`), event };
  });
  if (root.tokens !== undefined) needsV2("tokens");
  const seenTokens = new Set<string>();
  const tokens = arr(root.tokens, "tokens").map((raw, i): RegistryToken => {
    const t = obj(raw, `tokens[${i}]`);
    const address = addr(t.address, `tokens[${i}].address`);
    if (address && seenTokens.has(address)) problems.push(`tokens[${i}].address ${address} is duplicated`);
    seenTokens.add(address);
    const decimals = t.decimals;
    if (typeof decimals !== "number" || !Number.isInteger(decimals) || decimals < 0 || decimals > 36) problems.push(`tokens[${i}].decimals must be an integer from 0 to 36`);
    return { address, symbol: str(t.symbol, `tokens[${i}].symbol`), decimals: typeof decimals === "number" ? decimals : 0, currency: str(t.currency, `tokens[${i}].currency`) };
  });
  let explorerBaseUrl: string | null = null;
  if (root.explorer_base_url !== undefined) {
    needsV2("explorer_base_url");
    const url = root.explorer_base_url;
    if (typeof url !== "string" || !/^https?:\/\/[^\s]+$/.test(url)) problems.push("explorer_base_url must be an http(s) URL");
    else explorerBaseUrl = url.replace(/\/+$/, "");
  }
  if (problems.length) throw new InvalidRegistryError(problems);
  return { registryVersion: registryVersion as number, network, entities, addressLabels, fingerprintLabels, settlementContracts, tokens, explorerBaseUrl };
}
