import { mppFingerprint, parseRegistry } from "@agent-ledger/core";
import { Addresses } from "viem/tempo";
import * as viemTokens from "viem/tokens";
import { applyDiscovery, type Discovery } from "./applyDiscovery.ts";

/** The committed source data under registry/sources/ (docs/registry.md), as parsed JSON. */
export interface RegistrySources {
  /** tokens-4217.json: the official mainnet token list. */
  tokenList: TokenListFile;
  /** mpp-services.json: the official MPP service directory, extracted. */
  services: ServicesFile;
  mainnetFacts: MainnetFacts;
  testnetFacts: TestnetFacts;
}

interface TokenListFile {
  tokens: { address: string; symbol: string; name: string; decimals: number; chainId: number; extensions?: { currency?: string } }[];
}
interface DirectoryService {
  id: string;
  name: string;
  categories: string[];
  status: string;
  serviceUrl: string;
  realm: string;
  serverId: string;
  serverIdOfServiceHost: { host: string; serverId: string };
}
interface ServicesFile {
  services: DirectoryService[];
}
interface Sourced {
  sources: string[];
}
interface EscrowFact extends Sourced {
  id: string;
  address: string;
  abi: "legacy" | "precompile";
  label: string;
}
interface CommonFacts {
  chain_id: number;
  network: string;
  explorer_base_url: { value: string } & Sourced;
  escrows: EscrowFact[];
  /** Records printed by `npm run registry -- discover`, applied as `--write` applies them. */
  discovered: Discovery[];
}
interface MainnetFacts extends CommonFacts {
  token_list: Sourced;
  directory: Sourced;
  token_currencies: ({ address: string; symbol: string; currency: string } & Sourced)[];
  system_addresses: ({ address: string; label: string; viem: keyof typeof Addresses } & Sourced)[];
  gateway: { id: string; label: string; service_url: string; recipient: string } & Sourced;
  fingerprint_groups: { value: string; label: string; category: string }[];
}
interface TestnetFacts extends CommonFacts {
  tokens: ({ address: string; symbol: string; decimals: number; currency: string; name: string } & Sourced)[];
}

/** The source data contradicts itself or a recomputation: nothing is written. */
export class RegistrySourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegistrySourceError";
  }
}

/** How a generated registry names where a fact comes from: one source is said to be unverified. */
function describeSources(sources: readonly string[]): string {
  if (sources.length === 0) throw new RegistrySourceError("a fact without any source");
  return sources.length === 1 ? `unverified (single source): ${sources[0]}` : sources.join("; ");
}

const lower = (a: string) => a.toLowerCase();

/**
 * Builds registry/mainnet.json and registry/testnet.json (registry v3) from the committed source data, as JSON
 * documents (serialize with `JSON.stringify(doc, null, 2) + "\n"`). Pure apart from reading the installed viem's
 * token definitions and Tempo addresses, which it checks the facts against.
 *
 * Every fingerprint is recomputed (keccak256 with viem, core `mppFingerprint`) and compared with the directory's own;
 * a token's address, symbol, decimals and currency with viem's token definitions; system and precompile addresses with
 * viem's Tempo addresses: any mismatch throws RegistrySourceError. A fingerprint that only one directory service
 * produces (its host, or its realm when no other service shares it) is that service's server id; one that several
 * produce is a `fingerprint_labels` group named by `fingerprint_groups` (a group without a label also throws). The
 * result is validated by parseRegistry.
 */
export function buildRegistries(sources: RegistrySources): { mainnet: Record<string, unknown>; testnet: Record<string, unknown> } {
  const m = sources.mainnetFacts;
  const t = sources.testnetFacts;
  const services = serviceEntities(sources.services, m);
  const systemLabels = m.system_addresses.map((s) => {
    const expected = Addresses[s.viem];
    if (typeof expected !== "string" || lower(expected) !== lower(s.address)) {
      throw new RegistrySourceError(
        `mainnet-facts.json: system address ${s.label} ${s.address} is not viem/tempo Addresses.${String(s.viem)} (${String(expected)})`,
      );
    }
    return { address: lower(s.address), label: s.label, category: "system" };
  });
  const escrows = (facts: EscrowFact[], file: string) =>
    facts.map((x) => {
      if (x.abi === "precompile" && lower(x.address) !== lower(Addresses.tip20ChannelReserve)) {
        throw new RegistrySourceError(
          `${file}: precompile escrow ${x.address} is not viem/tempo Addresses.tip20ChannelReserve (${Addresses.tip20ChannelReserve})`,
        );
      }
      return { id: x.id, address: lower(x.address), abi: x.abi, label: x.label, source: describeSources(x.sources) };
    });
  const gateway = {
    id: m.gateway.id,
    label: m.gateway.label,
    category: "gateway",
    active: true,
    track_fees: false,
    wallets: [{ address: lower(m.gateway.recipient), source: describeSources(m.gateway.sources) }],
    // the gateway itself is the directory's shared realm; its wallet is the fact with its own sources
    service_url: m.gateway.service_url,
    source: m.directory.sources.join("; "),
  };

  const mainnet = finish(
    {
      about: ABOUT,
      registry_version: 3,
      network: m.network,
      chain_id: m.chain_id,
      explorer_base_url: m.explorer_base_url.value,
      tokens: mainnetTokens(sources.tokenList, m),
      entities: [gateway, ...services.entities],
      escrows: escrows(m.escrows, "mainnet-facts.json"),
      client_labels: [],
      address_labels: systemLabels,
      fingerprint_labels: services.groups,
      settlement_contracts: [],
    },
    m.discovered,
    "mainnet",
  );
  const testnet = finish(
    {
      about: ABOUT,
      registry_version: 3,
      network: t.network,
      chain_id: t.chain_id,
      explorer_base_url: t.explorer_base_url.value,
      tokens: t.tokens.map((token) => ({
        address: lower(token.address),
        symbol: token.symbol,
        decimals: token.decimals,
        currency: token.currency,
        name: token.name,
        source: describeSources(token.sources),
      })),
      entities: services.entities,
      escrows: escrows(t.escrows, "testnet-facts.json"),
      client_labels: [],
      address_labels: systemLabels,
      fingerprint_labels: services.groups,
      settlement_contracts: [],
    },
    t.discovered,
    "testnet",
  );
  return { mainnet, testnet };
}

const ABOUT = "Generated by `npm run registry -- generate` from registry/sources/ (docs/registry.md): edit the sources, never this file.";

function finish(document: Record<string, unknown>, discovered: Discovery[], name: string): Record<string, unknown> {
  let doc = document;
  for (const d of discovered) doc = applyDiscovery(doc, d).document;
  try {
    parseRegistry(doc);
  } catch (error) {
    throw new RegistrySourceError(`the generated ${name} registry is invalid: ${(error as Error).message}`);
  }
  return doc;
}

function mainnetTokens(list: TokenListFile, facts: MainnetFacts): Record<string, unknown>[] {
  const viemByAddress = new Map<string, { currency: string; decimals: number; symbol: string }>();
  for (const value of Object.values(viemTokens)) {
    const token = value as { addresses?: Record<number, string>; currency?: string; decimals?: number; symbol?: string };
    const address = token.addresses?.[facts.chain_id];
    if (address && token.currency && token.decimals !== undefined && token.symbol)
      viemByAddress.set(lower(address), { currency: token.currency, decimals: token.decimals, symbol: token.symbol });
  }
  const currencies = new Map(facts.token_currencies.map((c) => [lower(c.address), c]));
  return list.tokens.map((token) => {
    const address = lower(token.address);
    const at = `tokens-4217.json: ${token.symbol} ${address}`;
    if (token.chainId !== facts.chain_id) throw new RegistrySourceError(`${at} is on chain ${token.chainId}, not ${facts.chain_id}`);
    const fact = currencies.get(address);
    if (!fact) throw new RegistrySourceError(`${at} has no currency in mainnet-facts.json token_currencies`);
    const viem = viemByAddress.get(address);
    if (!viem) throw new RegistrySourceError(`${at} is not among viem/tokens' chain ${facts.chain_id} tokens`);
    if (viem.symbol !== token.symbol || viem.decimals !== token.decimals) {
      throw new RegistrySourceError(`${at}: viem/tokens says ${viem.symbol} with ${viem.decimals} decimals, the list ${token.symbol} with ${token.decimals}`);
    }
    if (viem.currency !== fact.currency)
      throw new RegistrySourceError(`${at}: currency ${fact.currency} in mainnet-facts.json, ${viem.currency} in viem/tokens`);
    const listed = token.extensions?.currency;
    if (listed !== undefined && listed !== fact.currency)
      throw new RegistrySourceError(`${at}: currency ${fact.currency} in mainnet-facts.json, ${listed} in the token list`);
    return {
      address,
      symbol: token.symbol,
      decimals: token.decimals,
      currency: fact.currency,
      name: token.name,
      source: `${facts.token_list.sources.join("; ")}, and viem/tokens agrees on address, symbol and decimals; currency: ${describeSources(fact.sources)}`,
    };
  });
}

interface Candidate {
  fingerprint: string;
  from: "host" | "realm";
  value: string;
  service: string;
}

function serviceEntities(file: ServicesFile, facts: MainnetFacts): { entities: Record<string, unknown>[]; groups: Record<string, unknown>[] } {
  const candidates: Candidate[] = [];
  for (const s of file.services) {
    let host: string;
    try {
      host = new URL(s.serviceUrl).host;
    } catch {
      throw new RegistrySourceError(`mpp-services.json: ${s.id}: serviceUrl ${s.serviceUrl} is not a URL`);
    }
    if (s.serverIdOfServiceHost.host !== host)
      throw new RegistrySourceError(
        `mpp-services.json: ${s.id}: serverIdOfServiceHost.host ${s.serverIdOfServiceHost.host} is not the host of ${s.serviceUrl}`,
      );
    const hostFp = mppFingerprint(host);
    const realmFp = mppFingerprint(s.realm);
    if (s.serverIdOfServiceHost.serverId !== hostFp)
      throw new RegistrySourceError(
        `mpp-services.json: ${s.id}: serverIdOfServiceHost.serverId ${s.serverIdOfServiceHost.serverId} is not keccak256("${host}")[0..9] = ${hostFp}`,
      );
    if (s.serverId !== realmFp)
      throw new RegistrySourceError(`mpp-services.json: ${s.id}: serverId ${s.serverId} is not keccak256("${s.realm}")[0..9] = ${realmFp}`);
    candidates.push({ fingerprint: hostFp, from: "host", value: host, service: s.id });
    if (realmFp !== hostFp) candidates.push({ fingerprint: realmFp, from: "realm", value: s.realm, service: s.id });
  }
  const owners = new Map<string, Set<string>>();
  for (const c of candidates) owners.set(c.fingerprint, (owners.get(c.fingerprint) ?? new Set()).add(c.service));
  const groupLabels = new Map(facts.fingerprint_groups.map((g) => [g.value, g]));
  const groups = new Map<string, Record<string, unknown>>();
  const serverIds = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const n = owners.get(c.fingerprint)!.size;
    if (n === 1) {
      serverIds.set(c.service, [...(serverIds.get(c.service) ?? []), c]);
      continue;
    }
    const group = groupLabels.get(c.value);
    if (!group)
      throw new RegistrySourceError(
        `mpp-services.json: ${c.value} (${c.fingerprint}) is shared by ${n} services: add its label to mainnet-facts.json fingerprint_groups`,
      );
    groups.set(c.fingerprint, { fingerprint: c.fingerprint, label: group.label, category: group.category });
  }
  for (const g of facts.fingerprint_groups) {
    if (!groups.has(mppFingerprint(g.value)))
      throw new RegistrySourceError(`mainnet-facts.json: fingerprint group ${g.value} is shared by no two directory services`);
  }
  // The official directory is the authority on what it lists (ids, names, categories, URLs, realms): not a claim to confirm.
  const source = facts.directory.sources.join("; ");
  const entities = [...file.services]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((s) => ({
      id: `${s.id}-mpp`,
      label: s.name,
      category: "service",
      active: s.status === "active",
      track_fees: false,
      wallets: [],
      server_ids: (serverIds.get(s.id) ?? []).map((c) => ({ fingerprint: c.fingerprint, from: c.from, value: c.value })),
      categories: s.categories,
      service_url: s.serviceUrl,
      source,
    }));
  return { entities, groups: [...groups.values()].sort((a, b) => String(a.label).localeCompare(String(b.label))) };
}
