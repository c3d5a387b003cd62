import { isAddress } from "../address/normalizeAddress.ts";
import { InvalidRegistryError } from "../errors.ts";
import { mppFingerprint } from "./mppFingerprint.ts";

export interface RegistryEntity {
  id: string;
  label: string;
  category: string;
  /** `service` when the id ends in `-mpp` (curated), `escrow` for an entity made from `escrows[]`, else `agent`. */
  kind: "service" | "agent" | "escrow";
  active: boolean;
  trackFees: boolean;
  wallets: string[];
  /** Registry v3: where a wallet is known from (`wallets[]` given as `{ address, source }`), by lowercase address. */
  walletSources: Record<string, string>;
  /** Registry v3: the MPP serverIds that name this entity (empty before v3). */
  serverIds: RegistryServerId[];
  /** Registry v3: the directory's categories of a service (e.g. `ai`, `media`). */
  categories: string[];
  /** Registry v3: the service's URL. */
  serviceUrl: string | null;
  /** Registry v3: where the entity's facts come from. */
  source: string | null;
}

/** Registry v3: a serverId fingerprint = keccak256(`value`)[0..9], `value` being the service host or its challenge realm. */
export interface RegistryServerId {
  fingerprint: string;
  from: "host" | "realm";
  value: string;
  source: string | null;
}

/** Registry v3: an MPP session escrow; parseRegistry also makes it an entity of kind and category `escrow`. */
export interface RegistryEscrow {
  id: string;
  address: string;
  abi: "legacy" | "precompile";
  label: string;
  /** The token to assume when the escrow's own events do not name one (methodology v0.3, sessions); null: none. */
  token: string | null;
  source: string | null;
}

/** Registry v3: a label for an MPP clientId fingerprint (memo bytes 15..24). */
export interface RegistryClientLabel {
  fingerprint: string;
  label: string;
  source: string | null;
}

export interface Registry {
  registryVersion: number;
  network: string;
  /**
   * The file's entities, then (registry v3) one entity per escrow: id, label, kind and category `escrow`, wallet = the
   * escrow's address, so its transactions are kept and its rows have an agent.
   */
  entities: RegistryEntity[];
  addressLabels: { address: string; label: string; category: string | null }[];
  fingerprintLabels: { fingerprint: string; label: string; category: string | null; providerAddress: string | null }[];
  settlementContracts: { address: string; label: string; event: RegistrySettlementEvent | null }[];
  /** Registry v2: the token allowlist (methodology v0.2 rule 1). */
  tokens: RegistryToken[];
  /** Registry v2: the block explorer of this network (methodology v0.2 rule 9); null when not given. */
  explorerBaseUrl: string | null;
  /** Registry v3: the chain the file describes (4217 mainnet, 42431 testnet, 31337 devnet); null when not given. */
  chainId: number | null;
  /** Registry v3: MPP session escrows. */
  escrows: RegistryEscrow[];
  /** Registry v3: labels of MPP client fingerprints. */
  clientLabels: RegistryClientLabel[];
}

export interface RegistryToken {
  address: string;
  symbol: string;
  decimals: number;
  currency: string;
  /** Registry v3: the token's name; null when not given. */
  name?: string | null;
  /** Registry v3: where the token's facts come from; null when not given. */
  source?: string | null;
}

/** Registry v2: how a settlement contract's event is read (methodology v0.2 rule 7). */
export interface RegistrySettlementEvent {
  topic0: string;
  providerTopic: 2 | 3;
  verified: boolean;
}

/** The first registry file schema version that may use `tokens`, `settlement_contracts[].event`, `explorer_base_url`. */
export const REGISTRY_V2 = 2;
/**
 * The first registry file schema version that may use `chain_id`, `escrows`, `client_labels`, entities'
 * `server_ids` / `categories` / `service_url` / `source` / `{ address, source }` wallets and tokens' `name` / `source`.
 */
export const REGISTRY_V3 = 3;

export const ENTITY_ID = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const FINGERPRINT = /^0x[0-9a-fA-F]{20}$/;
const TOPIC = /^0x[0-9a-fA-F]{64}$/;
const HTTP_URL = /^https?:\/\/[^\s]+$/;

export function entityKind(id: string): "service" | "agent" {
  return id.endsWith("-mpp") ? "service" : "agent";
}

/**
 * Validates a registry file (registry/*.json) and normalizes it: addresses and fingerprints lowercase, kinds derived,
 * escrows (v3) added as entities. A field newer than the file's `registry_version` is a problem, so an older reader
 * never silently ignores it. Throws InvalidRegistryError listing every problem found.
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
  const fingerprint = (v: unknown, at: string): string => {
    if (typeof v === "string" && FINGERPRINT.test(v)) return v.toLowerCase();
    problems.push(`${at} must be 0x + 20 hex characters`);
    return "";
  };

  const root = obj(input, "registry");
  const registryVersion = root.registry_version;
  if (typeof registryVersion !== "number" || !Number.isInteger(registryVersion) || registryVersion < 1)
    problems.push("registry_version must be a positive integer");
  const network = str(root.network, "network");
  const validVersion = typeof registryVersion === "number" && Number.isInteger(registryVersion) ? registryVersion : 0;
  const needs = (minimum: number) => (field: string) => {
    if (validVersion < minimum) problems.push(`${field} needs registry_version ${minimum} or later`);
  };
  const needsV2 = needs(REGISTRY_V2);
  const needsV3 = needs(REGISTRY_V3);
  /** A v3-only field: checked only when present. */
  const v3 = <T>(container: Record<string, unknown>, key: string, at: string, read: (v: unknown, at: string) => T, absent: T): T => {
    if (container[key] === undefined) return absent;
    needsV3(at);
    return read(container[key], at);
  };

  const seenIds = new Set<string>();
  const walletOwner = new Map<string, string>();
  const serverIdOwner = new Map<string, string>();
  const ownWallet = (w: string, id: string) => {
    const owner = walletOwner.get(w);
    if (w && owner !== undefined) problems.push(`wallet ${w} belongs to both "${owner}" and "${id}"`);
    walletOwner.set(w, id);
  };
  const entityId = (v: unknown, at: string): string => {
    const id = str(v, at);
    if (id && !ENTITY_ID.test(id)) problems.push(`${at} "${id}" must be lowercase letters, digits and dashes`);
    if (seenIds.has(id)) problems.push(`${at} "${id}" is duplicated`);
    seenIds.add(id);
    return id;
  };
  const entities = arr(root.entities, "entities").map((raw, i): RegistryEntity => {
    const at = `entities[${i}]`;
    const e = obj(raw, at);
    const id = entityId(e.id, `${at}.id`);
    const walletSources: Record<string, string> = {};
    const wallets = arr(e.wallets, `${at}.wallets`).map((w, j) => {
      const wat = `${at}.wallets[${j}]`;
      if (typeof w !== "object" || w === null) return addr(w, wat);
      needsV3(`${wat} ({ address, source })`);
      const o = obj(w, wat);
      const address = addr(o.address, `${wat}.address`);
      const source = optStr(o.source, `${wat}.source`);
      if (address && source) walletSources[address] = source;
      return address;
    });
    for (const w of wallets) ownWallet(w, id);
    const entity: RegistryEntity = {
      id,
      label: str(e.label, `${at}.label`),
      category: str(e.category, `${at}.category`),
      kind: entityKind(id),
      active: bool(e.active, `${at}.active`, true),
      trackFees: bool(e.track_fees, `${at}.track_fees`, false),
      wallets,
      walletSources,
      serverIds: v3(e, "server_ids", `${at}.server_ids`, (v, sat) => arr(v, sat).map((rawId, j) => readServerId(rawId, `${sat}[${j}]`)), []),
      categories: v3(e, "categories", `${at}.categories`, (v, cat) => arr(v, cat).map((c, j) => str(c, `${cat}[${j}]`)), []),
      serviceUrl: v3(e, "service_url", `${at}.service_url`, httpUrl, null),
      source: v3(e, "source", `${at}.source`, str, null),
    };
    for (const s of entity.serverIds) {
      const owner = serverIdOwner.get(s.fingerprint);
      if (s.fingerprint && owner !== undefined) problems.push(`server id ${s.fingerprint} belongs to both "${owner}" and "${id}"`);
      serverIdOwner.set(s.fingerprint, id);
    }
    return entity;
  });
  function readServerId(raw: unknown, at: string): RegistryServerId {
    const s = obj(raw, at);
    const fp = fingerprint(s.fingerprint, `${at}.fingerprint`);
    if (s.from !== "host" && s.from !== "realm") problems.push(`${at}.from must be "host" or "realm"`);
    const value = str(s.value, `${at}.value`);
    if (fp && value && mppFingerprint(value) !== fp) problems.push(`${at}.fingerprint ${fp} is not keccak256("${value}")[0..9] = ${mppFingerprint(value)}`);
    return { fingerprint: fp, from: s.from === "realm" ? "realm" : "host", value, source: optStr(s.source, `${at}.source`) };
  }
  function httpUrl(v: unknown, at: string): string | null {
    if (typeof v === "string" && HTTP_URL.test(v)) return v;
    problems.push(`${at} must be an http(s) URL`);
    return null;
  }
  const addressLabels = arr(root.address_labels, "address_labels").map((raw, i) => {
    const l = obj(raw, `address_labels[${i}]`);
    return {
      address: addr(l.address, `address_labels[${i}].address`),
      label: str(l.label, `address_labels[${i}].label`),
      category: optStr(l.category, `address_labels[${i}].category`),
    };
  });
  const fingerprintLabels = arr(root.fingerprint_labels, "fingerprint_labels").map((raw, i) => {
    const l = obj(raw, `fingerprint_labels[${i}]`);
    return {
      fingerprint: fingerprint(l.fingerprint, `fingerprint_labels[${i}].fingerprint`),
      label: str(l.label, `fingerprint_labels[${i}].label`),
      category: optStr(l.category, `fingerprint_labels[${i}].category`),
      providerAddress:
        l.provider_address === undefined || l.provider_address === null ? null : addr(l.provider_address, `fingerprint_labels[${i}].provider_address`),
    };
  });
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
    if (typeof decimals !== "number" || !Number.isInteger(decimals) || decimals < 0 || decimals > 36)
      problems.push(`tokens[${i}].decimals must be an integer from 0 to 36`);
    const token: RegistryToken = {
      address,
      symbol: str(t.symbol, `tokens[${i}].symbol`),
      decimals: typeof decimals === "number" ? decimals : 0,
      currency: str(t.currency, `tokens[${i}].currency`),
    };
    if (t.name !== undefined) token.name = v3(t, "name", `tokens[${i}].name`, str, null);
    if (t.source !== undefined) token.source = v3(t, "source", `tokens[${i}].source`, str, null);
    return token;
  });
  let explorerBaseUrl: string | null = null;
  if (root.explorer_base_url !== undefined) {
    needsV2("explorer_base_url");
    const url = root.explorer_base_url;
    if (typeof url !== "string" || !/^https?:\/\/[^\s]+$/.test(url)) problems.push("explorer_base_url must be an http(s) URL");
    else explorerBaseUrl = url.replace(/\/+$/, "");
  }
  const chainId = v3(
    root,
    "chain_id",
    "chain_id",
    (v, at) => {
      if (typeof v === "number" && Number.isSafeInteger(v) && v > 0) return v;
      problems.push(`${at} must be a positive integer`);
      return null;
    },
    null,
  );
  const escrows = v3(
    root,
    "escrows",
    "escrows",
    (v, at) =>
      arr(v, at).map((raw, i): RegistryEscrow => {
        const x = obj(raw, `${at}[${i}]`);
        const id = entityId(x.id, `${at}[${i}].id`);
        const address = addr(x.address, `${at}[${i}].address`);
        if (x.abi !== "legacy" && x.abi !== "precompile") problems.push(`${at}[${i}].abi must be "legacy" or "precompile"`);
        const token = x.token === undefined || x.token === null ? null : addr(x.token, `${at}[${i}].token`);
        if (token && tokens.length > 0 && !seenTokens.has(token)) problems.push(`${at}[${i}].token ${token} is not in tokens`);
        ownWallet(address, id);
        return {
          id,
          address,
          abi: x.abi === "precompile" ? "precompile" : "legacy",
          label: str(x.label, `${at}[${i}].label`),
          token,
          source: optStr(x.source, `${at}[${i}].source`),
        };
      }),
    [],
  );
  const seenClients = new Set<string>();
  const clientLabels = v3(
    root,
    "client_labels",
    "client_labels",
    (v, at) =>
      arr(v, at).map((raw, i): RegistryClientLabel => {
        const l = obj(raw, `${at}[${i}]`);
        const fp = fingerprint(l.fingerprint, `${at}[${i}].fingerprint`);
        if (fp && seenClients.has(fp)) problems.push(`${at}[${i}].fingerprint ${fp} is duplicated`);
        seenClients.add(fp);
        return { fingerprint: fp, label: str(l.label, `${at}[${i}].label`), source: optStr(l.source, `${at}[${i}].source`) };
      }),
    [],
  );
  if (problems.length) throw new InvalidRegistryError(problems);
  for (const x of escrows) {
    entities.push({
      id: x.id,
      label: x.label,
      category: "escrow",
      kind: "escrow",
      active: true,
      trackFees: false,
      wallets: [x.address],
      walletSources: x.source ? { [x.address]: x.source } : {},
      serverIds: [],
      categories: [],
      serviceUrl: null,
      source: x.source,
    });
  }
  return {
    registryVersion: registryVersion as number,
    network,
    entities,
    addressLabels,
    fingerprintLabels,
    settlementContracts,
    tokens,
    explorerBaseUrl,
    chainId,
    escrows,
    clientLabels,
  };
}
