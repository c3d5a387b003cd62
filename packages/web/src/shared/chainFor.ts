import { tempo, tempoDevnet, tempoLocalnet, tempoModerato } from "viem/chains";

/** What approve-init says about the chain. */
export interface InitChain {
  id: number;
  rpc_url: string;
  relay_url: string;
  /** Optional overrides (a devnet needs its hardfork; the fee token defaults to the payment token). */
  hardfork?: string;
  fee_token?: string;
  explorer_url?: string;
}

/**
 * The viem chain for an approve-init answer: a Tempo chain viem knows (mainnet, testnet, devnet) by id; anything else is treated like the local
 * devnet (`anvil --network tempo --hardfork T4`, chain id 31337): tempoLocalnet with that id and hardfork `t4`.
 * Fees are paid in `feeToken` (the sponsor pays them through the relay).
 */
export function chainFor(c: InitChain, feeToken: `0x${string}`) {
  const known = [tempo, tempoModerato, tempoDevnet, tempoLocalnet].find((k) => k.id === c.id);
  const base = known ?? tempoLocalnet;
  return {
    ...base.extend({ feeToken: (c.fee_token ?? feeToken) as `0x${string}` }),
    id: c.id,
    rpcUrls: { default: { http: [c.rpc_url] } },
    ...(c.hardfork ? { hardfork: c.hardfork } : known ? {} : { hardfork: "t4" }),
  } as unknown as typeof tempoLocalnet;
}
