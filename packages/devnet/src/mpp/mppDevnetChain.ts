import { createClient, http, maxUint256, type Client, type Transport } from "viem";
import { devnetChain } from "../chain.ts";
import { DEVNET_CHAIN_ID } from "../constants.ts";
import { DevnetError } from "../errors.ts";

type PrepareHook = (typeof devnetChain.prepareTransactionRequest)[0];
const [tempoPrepare, tempoPrepareOptions] = devnetChain.prepareTransactionRequest;

/**
 * The devnet chain as mppx 0.11.0 needs it: viem's tempoLocalnet re-numbered to anvil's 31337 (`devnetChain`, fee
 * token pathUSD), with the two workarounds mppx needs on anvil. mppx only knows Tempo mainnet (4217) and testnet
 * (42431), so every mppx client and server here gets `getClient` (mppDevnetClientResolver) returning a client on this
 * chain instead of its defaults; `testnet: true` is never set (it would mean 42431).
 *
 * This file is the only place the workarounds live; both act in the chain's `prepareTransactionRequest` hook, so
 * every transaction mppx prepares on the devnet (client charges, channel opens and top-ups; server settle and close)
 * gets them and nothing else in the package does.
 *
 * 1. Expiring nonces. mppx asks for Tempo expiring-nonce transactions (`nonceKey: 'expiring'`, nonceKey = 2^256-1)
 *    for the charge transfer and the channel open/top-up it signs, and viem switches to them by itself when it sees
 *    concurrent sends of one account. viem 2.57.20 (`viem/tempo` chainConfig) fills such a request's `nonce` with a
 *    random 48-bit discriminator when it is unset (`request.nonce ??= random`). anvil 1.7.1 running `--hardfork T4`
 *    rejects every expiring-nonce transaction whose nonce is not 0 ("expiring nonce transaction must have
 *    nonce == 0"), so without this no mppx payment reaches the devnet. The hook pins `nonce = 0` on an expiring
 *    request before viem's own hook runs (viem only fills an unset nonce). Replay protection of expiring
 *    transactions is their hash within `validBefore`, not the nonce, so nothing else changes.
 * 2. Gas. anvil 1.7.1 (T4) under-estimates transactions whose calls create contract storage: eth_fillTransaction /
 *    eth_estimateGas gave 784,000 for approve + open of a session channel that used 1,810,034 (T4 prices each new
 *    storage slot at 250,000; the estimate misses those of the escrow), so mppx's channel opens ran out of gas. The
 *    hook raises the filled gas limit to at least GAS_FLOOR. Only gas used is charged (base fee × used), and anvil
 *    packs blocks by gas used, so the higher limit costs nothing.
 * Remove them once anvil accepts viem's discriminator and estimates T4 storage creation.
 */
export const GAS_FLOOR = 3_000_000n;

const prepareForAnvil: PrepareHook = async (request, context) => {
  const r = request as { nonceKey?: unknown; nonce?: number };
  if ((r.nonceKey === "expiring" || r.nonceKey === maxUint256) && r.nonce === undefined) r.nonce = 0;
  const prepared = (await tempoPrepare(request, context)) ?? request;
  const phase = (context as { phase?: string } | undefined)?.phase;
  const p = prepared as { gas?: bigint };
  if (phase === "afterFillParameters" && typeof p.gas === "bigint" && p.gas < GAS_FLOOR) p.gas = GAS_FLOOR;
  return prepared;
};

export const mppDevnetChain = {
  ...devnetChain,
  prepareTransactionRequest: [prepareForAnvil, tempoPrepareOptions],
} as unknown as typeof devnetChain;

/**
 * mppx's `getClient` for the devnet: one viem client on mppDevnetChain per call site, for chain id 31337 only
 * (anything else is a configuration error, not a chain to fall back to). Plain http transport, not `anvilCompat`:
 * its rewrite of a single-call `eth_fillTransaction` to top-level to/data makes anvil 1.7.1 (T4) estimate an
 * expiring-nonce transfer at ~313k gas, below its own intrinsic gas (the 0x76 state-creation charges), so the
 * server's simulation of every one-transfer charge failed ("intrinsic gas too high"); unrewritten, the fill is right.
 */
export function mppDevnetClientResolver(rpcUrl: string): (parameters?: { chainId?: number | undefined }) => Client<Transport, typeof mppDevnetChain> {
  const client = createClient({ chain: mppDevnetChain, transport: http(rpcUrl, { timeout: 30_000, retryCount: 0 }), pollingInterval: 100 });
  return ({ chainId } = {}) => {
    if (chainId !== undefined && chainId !== DEVNET_CHAIN_ID) throw new DevnetError(`mppx asked for chain ${chainId}; the devnet is ${DEVNET_CHAIN_ID}`);
    return client;
  };
}
