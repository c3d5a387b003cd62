import type { Address, Hex } from "viem";
import { DEVNET_CHAIN_ID, TOKENS } from "../constants.ts";
import { mppFingerprint } from "../mpp/mppFingerprint.ts";
import { demoKeys, type DemoKeys } from "./demoKeys.ts";

/** Registry v3: a serverId naming a service (keccak256(value)[0..9]; the demo's realms are service hosts). */
export type RegistryServerId = { fingerprint: Hex; from: "host" | "realm"; value: string };
export type RegistryEntity = {
  id: string;
  label: string;
  category: string;
  active: boolean;
  track_fees: boolean;
  /** May be empty for a v3 service known only by its server ids. */
  wallets: Address[];
  server_ids?: RegistryServerId[];
  categories?: string[];
  source?: string;
};
export type DemoRegistry = {
  registry_version: 3;
  network: "devnet";
  chain_id: typeof DEVNET_CHAIN_ID;
  /** Our own explorer (served by the API), so demo rows do not link to dead mainnet pages (methodology v0.2 rule 9). */
  explorer_base_url: string;
  /** The token allowlist (methodology v0.2 rule 1): the devnet's four TIP-20 stablecoins. */
  tokens: { address: Address; symbol: string; decimals: number; currency: string }[];
  entities: RegistryEntity[];
  /** MPP session escrows: the demo's StreamChannelEscrow (legacy TempoStreamChannel interface). */
  escrows: { id: string; address: Address; abi: "legacy"; label: string; source: string }[];
  /** Labels of the demo agents' MPP client fingerprints (keccak256(clientId)[0..9]). */
  client_labels: { fingerprint: Hex; label: string }[];
  address_labels: { address: Address; label: string; category: string }[];
  fingerprint_labels: { fingerprint: Hex; label: string; category: string; provider_address: Address }[];
  settlement_contracts: { address: Address; label: string }[];
};

/** Where the demo's rows link (`${base}/tx/<hash>`): our own explorer, served by the API on its default port. */
export const DEMO_EXPLORER_BASE_URL = "http://localhost:3000";
const SOURCE = "packages/devnet (demo)";

const hostId = (realm: string): RegistryServerId => ({ fingerprint: mppFingerprint(realm), from: "host", value: realm });

/**
 * The content of registry/demo.json (registry v3), derived from the deterministic demo keys (addresses lowercase):
 * - entities: the gateway, the agents, the MPP services with the serverIds of their realms (direct services also
 *   with their wallet; the gateway's services with none, their charges are paid to the gateway; web-scraping left out
 *   on purpose), the session-only RPC node, an inactive agent;
 * - escrows: the session escrow at its deterministic address (abi "legacy");
 * - client_labels: the agents' MPP client ids;
 * - v0.2 parts kept: the gateway escrow as a settlement contract (the gateway's payouts to its providers, Pattern A),
 *   provider and faucet labels, the hand-made gateway-memo fingerprints the v0.2 fixtures send.
 */
export function buildDemoRegistry(keys: DemoKeys = demoKeys()): DemoRegistry {
  const entity = (
    id: string,
    label: string,
    category: string,
    wallets: Address[],
    extra: Partial<RegistryEntity> = {},
    trackFees = false,
    active = true,
  ): RegistryEntity => ({
    id,
    label,
    category,
    active,
    track_fees: trackFees,
    wallets,
    ...extra,
  });
  const wallet = (id: string, address: Address): Address[] =>
    // the first agent has a second wallet: a move between the two is internal (no row)
    id === keys.alphaSecondWallet.id ? [address, keys.alphaSecondWallet.address] : [address];
  return {
    registry_version: 3,
    network: "devnet",
    chain_id: DEVNET_CHAIN_ID,
    explorer_base_url: DEMO_EXPLORER_BASE_URL,
    tokens: Object.entries(TOKENS).map(([symbol, address]) => ({ address, symbol, decimals: 6, currency: "USD" })),
    entities: [
      entity(keys.gateway.id, keys.gateway.label, "gateway", [keys.gateway.address]),
      ...keys.agents.map((a) => entity(a.id, a.label, "agent", wallet(a.id, a.address), {}, a.trackFees)),
      ...keys.directServices.map((s) => entity(s.id, s.label, "service", [s.address], { server_ids: [hostId(s.realm)], source: SOURCE })),
      ...keys.routedServices.flatMap((r) =>
        r.serviceId ? [entity(r.serviceId, r.serviceLabel ?? r.serviceId, "service", [], { server_ids: [hostId(r.realm)], source: SOURCE })] : [],
      ),
      entity(keys.rpcNode.id, keys.rpcNode.label, "service", [keys.rpcNode.address], { server_ids: [hostId(keys.rpcNode.realm)], source: SOURCE }),
      // inactive: not watched, its payments are seen only from the active side
      entity(keys.retiredAgent.id, keys.retiredAgent.label, "agent", [keys.retiredAgent.address], {}, false, false),
    ],
    escrows: [
      {
        id: "demo-session-escrow",
        address: keys.sessionEscrowAddress,
        abi: "legacy",
        label: "Demo MPP session escrow (StreamChannelEscrow)",
        source: "packages/devnet/contracts/StreamChannelEscrow.sol",
      },
    ],
    client_labels: keys.agents.map((a) => ({ fingerprint: mppFingerprint(a.clientId), label: a.label })),
    address_labels: [
      ...keys.routedServices.map((r) => ({ address: r.provider.address, label: r.provider.label, category: "provider" })),
      { address: keys.computeProvider.address, label: keys.computeProvider.label, category: "provider" },
      ...keys.faucets.map((f) => ({ address: f.address, label: f.label, category: "faucet" })),
    ],
    fingerprint_labels: keys.routedServices.flatMap((r) =>
      // each labelled fingerprint is linked to its provider's address: one provider, two keys (methodology v0.2 rule 3)
      r.fingerprintLabel
        ? [{ fingerprint: r.fingerprint.toLowerCase() as Hex, label: r.fingerprintLabel, category: "provider", provider_address: r.provider.address }]
        : [],
    ),
    settlement_contracts: [{ address: keys.escrowAddress, label: "Demo gateway escrow" }],
  };
}
