import { createClient, http, publicActions, walletActions, type Account, type Transport } from "viem";
import { tempoLocalnet } from "viem/chains";
import { tempoActions } from "viem/tempo";
import { DEVNET_CHAIN_ID, PATH_USD } from "./constants.ts";

/**
 * viem chain for `anvil --network tempo --hardfork T4`: tempoLocalnet with anvil's chain id (31337),
 * hardfork 't4' and pathUSD as the default fee token.
 */
export const devnetChain = {
  ...tempoLocalnet.extend({ feeToken: PATH_USD }),
  id: DEVNET_CHAIN_ID,
  name: "Tempo devnet (anvil)",
  hardfork: "t4",
} as const;

export type DevnetChain = typeof devnetChain;

type RpcArgs = { method: string; params?: unknown };
type CallRequest = { calls?: { to?: string; data?: string; input?: string; value?: string }[]; to?: string; [k: string]: unknown };

/**
 * HTTP transport with an anvil 1.7.1 workaround: on some hardforks its `eth_fillTransaction` ignores the
 * `calls` array of a type-0x76 request (returns a too-small gas). viem/tempo always sends `calls`, so a
 * single-call fill is rewritten to top-level to/data/value. Harmless on T4, where estimation is correct.
 */
export function anvilCompat(url: string, options: { timeoutMs?: number } = {}): Transport {
  const inner = http(url, { timeout: options.timeoutMs ?? 30_000, retryCount: 0 });
  return (config) => {
    const t = inner(config);
    const request = async (args: RpcArgs, opts?: unknown) => {
      const params = Array.isArray(args.params) ? (args.params as unknown[]) : undefined;
      const first = params?.[0] as CallRequest | undefined;
      if (args.method === "eth_fillTransaction" && params && first?.calls?.length === 1 && !first.to) {
        const { calls, ...rest } = first;
        const c = calls[0]!;
        const value = c.value && c.value !== "0x" ? c.value : undefined;
        const rewritten = { ...rest, to: c.to, data: c.data ?? c.input, ...(value ? { value } : {}) };
        return t.request({ method: args.method, params: [rewritten, ...params.slice(1)] } as never, opts as never);
      }
      return t.request(args as never, opts as never);
    };
    return { ...t, request: request as typeof t.request };
  };
}

/** Public + wallet + tempo actions client for the devnet (poll 100 ms, shimmed transport). */
export function createDevnetClient<A extends Account | undefined = undefined>({ url, account }: { url: string; account?: A }) {
  return createClient({ chain: devnetChain, transport: anvilCompat(url), account: account as A, pollingInterval: 100 })
    .extend(publicActions)
    .extend(walletActions)
    .extend(tempoActions());
}

/** The account-less devnet client (senders sign locally). */
export type DevnetClient = ReturnType<typeof createDevnetClient<undefined>>;
