import { privateKeyToAccount } from "viem/accounts";
import { ALPHA_USD, PATH_USD } from "../constants.ts";
import type { MppRealmConfig } from "../mpp/startMppServer.ts";
import type { DemoKeys } from "./demoKeys.ts";

/** One operator's mppx server: the realms it serves (one loopback HTTP server each in the demo). */
export type DemoMppServer = { id: string; label: string; realms: MppRealmConfig[] };

/** Price per gateway request (decimal pathUSD). */
const GATEWAY_PRICES: Record<string, string> = { "image-generation": "0.04", "speech-to-text": "0.03", "web-scraping": "0.015" };

/**
 * The MPP services the demo runs, per operator (prices in decimal token units):
 * - weather-api: charge 0.01 pathUSD to its own wallet;
 * - search-api: charge 0.02 AlphaUSD to its own wallet;
 * - llm-inference: charge 0.05 pathUSD of which a split of 0.01 goes to the GPU compute provider, and sessions at
 *   0.002 per request (suggested deposit 0.006: three requests, so longer sessions top up) paid into the session
 *   escrow, payee its own wallet;
 * - gateway: three realms (image-generation 0.04, speech-to-text 0.03, web-scraping 0.015 pathUSD), all paid to the
 *   gateway wallet, as the Tempo MPP gateway serves `<service>.mpp.tempo.xyz` from one recipient;
 * - rpc-node: sessions only, 0.001 per request (suggested deposit 0.003).
 */
export function demoMppServers(keys: DemoKeys): DemoMppServer[] {
  const [weather, search, llm] = keys.directServices as [DemoKeys["directServices"][0], DemoKeys["directServices"][0], DemoKeys["directServices"][0]];
  return [
    {
      id: "weather-api",
      label: weather.label,
      realms: [{ id: "weather-api", realm: weather.realm, charge: { recipient: weather.address, amount: "0.01", currency: PATH_USD } }],
    },
    {
      id: "search-api",
      label: search.label,
      realms: [{ id: "search-api", realm: search.realm, charge: { recipient: search.address, amount: "0.02", currency: ALPHA_USD } }],
    },
    {
      id: "llm-inference",
      label: llm.label,
      realms: [
        {
          id: "llm-inference",
          realm: llm.realm,
          charge: { recipient: llm.address, amount: "0.05", currency: PATH_USD, splits: [{ recipient: keys.computeProvider.address, amount: "0.01" }] },
          session: { payee: privateKeyToAccount(llm.privateKey), amount: "0.002", suggestedDeposit: "0.006", currency: PATH_USD },
        },
      ],
    },
    {
      id: "gateway",
      label: keys.gateway.label,
      realms: keys.routedServices.map((r) => ({
        id: r.service,
        realm: r.realm,
        charge: { recipient: keys.gateway.address, amount: GATEWAY_PRICES[r.service]!, currency: PATH_USD },
      })),
    },
    {
      id: "rpc-node",
      label: keys.rpcNode.label,
      realms: [
        {
          id: "rpc-node",
          realm: keys.rpcNode.realm,
          session: { payee: privateKeyToAccount(keys.rpcNode.privateKey), amount: "0.001", suggestedDeposit: "0.003", currency: PATH_USD },
        },
      ],
    },
  ];
}
