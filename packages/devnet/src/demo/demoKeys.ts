import { getContractAddress, keccak256, slice, toHex, type Address, type Hex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { ALPHA_USD, DEV_PRIVATE_KEYS, PATH_USD } from "../constants.ts";
import { DEMO_KEY_PREFIX, demoPrivateKey } from "./demoPrivateKey.ts";

export type DemoIdentity = { id: string; label: string; privateKey: Hex /** lowercase */; address: Address };
/** A demo agent; `clientId` is its MPP client id (mppx `clientId`, fingerprinted into its charge memos). */
export type DemoAgent = DemoIdentity & { trackFees: boolean; clientId: string };
/** A service paid directly (its own recipient wallet); `realm` is its MPP realm (a host name). */
export type DemoDirectService = DemoIdentity & { realm: string };
/**
 * A service reached through the gateway. With MPP (the running demo) agents pay its realm with mppx charges whose
 * recipient is the gateway wallet; `serviceId` names its registry entity (known by its realm's serverId, no wallet),
 * absent for the one left out of the registry on purpose. The gateway pays its provider through the gateway escrow
 * (Pattern A). `fingerprint`/`fingerprintLabel` are the hand-made v0.2 gateway-memo fingerprint (v0.2 fixtures only).
 */
export type DemoRoutedService = {
  service: string;
  realm: string;
  serviceId?: string;
  serviceLabel?: string;
  fingerprint: Hex;
  fingerprintLabel?: string;
  provider: DemoIdentity;
};
export type DemoFaucet = DemoIdentity & { token: Address };

export type DemoKeys = {
  agents: DemoAgent[];
  /** Services paid directly by agents; ids end with `-mpp`. weather (pathUSD), search (AlphaUSD), llm (charge with a split, and sessions). */
  directServices: DemoDirectService[];
  /** A session-only service (pay as you go through the session escrow). */
  rpcNode: DemoDirectService;
  /** Receives the split of every LLM charge (not watched: an address label). */
  computeProvider: DemoIdentity;
  /** The gateway settlement wallet (receives Pattern B payments, calls the escrow). */
  gateway: DemoIdentity;
  routedServices: DemoRoutedService[];
  /** Deploys the escrow with its first transaction (nonce 0). */
  deployer: DemoIdentity;
  /** CREATE address of the deployer at nonce 0 (lowercase). */
  escrowAddress: Address;
  /** Deploys the MPP session escrow (StreamChannelEscrow) with its first transaction (nonce 0). */
  sessionEscrowDeployer: DemoIdentity;
  /** CREATE address of the session escrow deployer at nonce 0 (lowercase). */
  sessionEscrowAddress: Address;
  /** Anvil dev accounts that fund the demo (one per token). */
  faucets: DemoFaucet[];
  /** Methodology v0.2 demo cases (issue 15): the adversary's key, a second wallet of the first agent, a retired (inactive) entity. */
  adversary: DemoIdentity;
  alphaSecondWallet: DemoIdentity;
  retiredAgent: DemoIdentity;
};

const AGENTS = [
  { id: "demo-agent-alpha", label: "Demo agent Alpha", trackFees: false },
  { id: "demo-agent-beta", label: "Demo agent Beta", trackFees: false },
  { id: "demo-agent-gamma", label: "Demo agent Gamma", trackFees: true },
] as const;
/** Realms are host names under `mpp.localhost` (the servers listen on loopback; the realm is what the memo carries). */
const DIRECT_SERVICES = [
  { id: "weather-api-mpp", label: "Weather API (MPP)", realm: "weather-api.mpp.localhost" },
  { id: "search-api-mpp", label: "Search API (MPP)", realm: "search-api.mpp.localhost" },
  { id: "llm-inference-mpp", label: "LLM inference (MPP)", realm: "llm-inference.mpp.localhost" },
] as const;
const RPC_NODE = { id: "rpc-node-mpp", label: "RPC node (MPP sessions)", realm: "rpc-node.mpp.localhost" } as const;
const ROUTED_SERVICES = [
  {
    service: "image-generation",
    providerLabel: "Image generation provider",
    fingerprintLabel: "Image generation (via gateway)",
    serviceId: "image-generation-mpp",
    serviceLabel: "Image generation (via Tempo MPP Gateway)",
  },
  {
    service: "speech-to-text",
    providerLabel: "Speech-to-text provider",
    fingerprintLabel: "Speech-to-text (via gateway)",
    serviceId: "speech-to-text-mpp",
    serviceLabel: "Speech-to-text (via Tempo MPP Gateway)",
  },
  // left out of the registry on purpose: no entity, no fingerprint label
  { service: "web-scraping", providerLabel: "Web scraping provider", fingerprintLabel: undefined, serviceId: undefined, serviceLabel: undefined },
] as const;
/** The gateway's realms: one host per service, as the Tempo MPP gateway's `<service>.mpp.tempo.xyz`. */
const gatewayRealm = (service: string) => `${service}.gateway.mpp.localhost`;

const identity = (id: string, label: string, name: string = id): DemoIdentity => {
  const privateKey = demoPrivateKey(name);
  return { id, label, privateKey, address: privateKeyToAddress(privateKey).toLowerCase() as Address };
};

/** The v0.2 hand-made gateway-memo fingerprint of a routed service: first 10 bytes of keccak256('agent-ledger-demo:fingerprint:<service>'). */
const fingerprintOf = (service: string): Hex => slice(keccak256(toHex(`${DEMO_KEY_PREFIX}fingerprint:${service}`)), 0, 10);

/** Every deterministic demo identity (keys from demoPrivateKey(name)), plus the escrow address they imply. */
export function demoKeys(): DemoKeys {
  const deployer = identity("escrow-deployer", "Demo escrow deployer");
  const sessionEscrowDeployer = identity("session-escrow-deployer", "Demo session escrow deployer");
  const faucet = (i: 0 | 1, token: Address): DemoFaucet => {
    const privateKey = DEV_PRIVATE_KEYS[i];
    return { id: `anvil-dev-${i}`, label: "Devnet faucet", privateKey, address: privateKeyToAddress(privateKey).toLowerCase() as Address, token };
  };
  return {
    agents: AGENTS.map((a) => ({ ...identity(a.id, a.label), trackFees: a.trackFees, clientId: a.id })),
    directServices: DIRECT_SERVICES.map((s) => ({ ...identity(s.id, s.label), realm: s.realm })),
    rpcNode: { ...identity(RPC_NODE.id, RPC_NODE.label), realm: RPC_NODE.realm },
    computeProvider: identity("llm-compute-provider", "GPU compute provider (LLM split)"),
    gateway: identity("tempo-gateway-mpp", "Tempo MPP Gateway"),
    routedServices: ROUTED_SERVICES.map((s) => ({
      service: s.service,
      realm: gatewayRealm(s.service),
      ...(s.serviceId ? { serviceId: s.serviceId, serviceLabel: s.serviceLabel } : {}),
      fingerprint: fingerprintOf(s.service),
      ...(s.fingerprintLabel ? { fingerprintLabel: s.fingerprintLabel } : {}),
      provider: identity(`provider-${s.service}`, s.providerLabel),
    })),
    deployer,
    escrowAddress: getContractAddress({ from: deployer.address, nonce: 0n }).toLowerCase() as Address,
    sessionEscrowDeployer,
    sessionEscrowAddress: getContractAddress({ from: sessionEscrowDeployer.address, nonce: 0n }).toLowerCase() as Address,
    faucets: [faucet(0, PATH_USD), faucet(1, ALPHA_USD)],
    adversary: identity("adversary", "Adversary (not in the registry)"),
    alphaSecondWallet: identity("demo-agent-alpha", "Demo agent Alpha", "demo-agent-alpha:second-wallet"),
    retiredAgent: identity("retired-agent", "Retired agent (inactive)"),
  };
}
