import { createClient, http, publicActions, type Hash, type Hex } from "viem";
import { tempo, tempoDevnet, tempoLocalnet, tempoModerato } from "viem/chains";
import { Account, Relay, tempoActions } from "viem/tempo";
import { classifySendError } from "@agent-ledger/core";
import { createRpcClient, RpcError } from "@agent-ledger/runtime";
import type { WalletConfig } from "./config.ts";
import { WalletError } from "./WalletError.ts";

/** A receipt as the wallet reads it (raw JSON-RPC fields normalized). */
export interface WalletReceipt {
  transactionHash: Hash;
  status: "success" | "reverted";
  from: `0x${string}`;
  blockNumber: bigint;
  logs: { address: `0x${string}`; topics: Hex[]; data: Hex }[];
}

type RawReceipt = { transactionHash: Hash; status: string; from: string; blockNumber: string; logs: { address: string; topics: Hex[]; data: Hex }[] };

export function normalizeReceipt(r: RawReceipt): WalletReceipt {
  return {
    transactionHash: r.transactionHash,
    status: r.status === "0x1" || r.status === "success" ? "success" : "reverted",
    from: r.from.toLowerCase() as `0x${string}`,
    blockNumber: BigInt(r.blockNumber),
    logs: r.logs.map((l) => ({ address: l.address.toLowerCase() as `0x${string}`, topics: l.topics, data: l.data })),
  };
}

/** A JSON-RPC error object answered by the node (HTTP 200), as opposed to a timeout, a dropped connection or an HTTP error. */
export class JsonRpcError extends Error {
  constructor(
    message: string,
    readonly code: unknown,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
}

/**
 * The node refused the transaction for certain (classifySendError in @agent-ledger/core, docs/wallet.md § Uncertain
 * outcomes): it is not in the pool and never will be. Any other error of sendRawSync leaves the outcome open.
 */
export class NodeRejectedError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = "NodeRejectedError";
  }
}

const KNOWN = [tempo, tempoModerato, tempoDevnet, tempoLocalnet];

/** viem chain for a Tempo chain id: a known viem chain, or (devnet/anvil) tempoLocalnet with that id at hardfork T4. */
export function tempoChainFor(id: number, feeToken: `0x${string}`) {
  const known = KNOWN.find((c) => c.id === id);
  const base = (known ?? tempoLocalnet).extend({ feeToken });
  return known ? { ...base } : { ...base, id, name: "Tempo (local)", hardfork: "t4" };
}

export interface WalletChain {
  chainId(): Promise<number>;
  /** The viem client (public + tempo actions) on the configured chain. */
  client(): Promise<ReturnType<typeof buildClient>>;
  relay(
    validate: Parameters<typeof Relay.feePayer>[0] extends infer O ? (O extends { validate?: infer V } ? V : never) : never,
  ): Promise<ReturnType<typeof Relay.create>>;
  sponsor: ReturnType<typeof Account.fromSecp256k1> | null;
  /** Cached gas price (refreshed every 30 s in the background). */
  maxFeePerGas(): Promise<bigint>;
  /**
   * eth_sendRawTransactionSync with a bounded wait. NodeRejectedError only when the node definitely refused it; any
   * other error (timeout, dropped connection, HTTP error, another JSON-RPC error) means the outcome is unknown.
   */
  sendRawSync(raw: Hex, timeoutMs: number): Promise<WalletReceipt>;
  getReceipt(hash: Hash): Promise<WalletReceipt | null>;
  /** Polls for a receipt until `timeoutMs`; null when none was seen (the node said none, or could not be asked). */
  waitForReceipt(hash: Hash, timeoutMs: number, pollMs?: number): Promise<WalletReceipt | null>;
  blockTimestamp(blockNumber: bigint): Promise<Date | null>;
}

function buildClient(url: string, chain: ReturnType<typeof tempoChainFor>) {
  return createClient({ chain, transport: http(url, { timeout: 30_000, retryCount: 0 }), pollingInterval: 100 })
    .extend(publicActions)
    .extend(tempoActions());
}

/**
 * One call through the project's JSON-RPC client (runtime createRpcClient), its failures as the wallet tells them apart:
 * a JSON-RPC error object the node answered → JsonRpcError (its message and code as sent: the input of
 * classifySendError); no answer (timeout, refused or dropped connection) → the fetch error itself; an HTTP error →
 * "<method>: the RPC answered HTTP <status>"; an answer that is not JSON-RPC → the client's RpcError.
 */
async function rpc<T>(url: string, method: string, params: unknown[], timeoutMs: number): Promise<T> {
  try {
    return await createRpcClient(url, { timeoutMs }).request<T>(method, params);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    if (error.kind === "error") throw new JsonRpcError(error.reason, error.code);
    if (error.kind === "transport" && error.cause) throw error.cause;
    if (error.kind === "http") throw new Error(`${method}: the RPC answered HTTP ${error.status}`);
    throw error;
  }
}

export function createWalletChain(config: WalletConfig): WalletChain {
  const url = config.rpcUrl;
  const sponsor = config.sponsorPrivateKey ? Account.fromSecp256k1(config.sponsorPrivateKey) : null;
  let chainIdP: Promise<number> | undefined;
  let clientP: Promise<ReturnType<typeof buildClient>> | undefined;
  let relayP: Promise<ReturnType<typeof Relay.create>> | undefined;
  let fee: { value: bigint; at: number } | undefined;
  let feeRefresh: Promise<bigint> | undefined;

  const need = (): string => {
    if (!url) throw new WalletError("not_configured", "the wallet has no chain (TEMPO_RPC_URL)");
    return url;
  };
  const chainId = (): Promise<number> => {
    const u = need();
    if (config.chainId !== undefined) return Promise.resolve(config.chainId);
    chainIdP ??= rpc<string>(u, "eth_chainId", [], 5_000).then((h) => Number(BigInt(h)));
    chainIdP.catch(() => (chainIdP = undefined));
    return chainIdP.catch(() => {
      throw new WalletError("chain_unavailable", "the chain RPC did not answer eth_chainId");
    });
  };
  const client = () => {
    const u = need();
    clientP ??= chainId().then((id) => buildClient(u, tempoChainFor(id, config.defaultToken)));
    clientP.catch(() => (clientP = undefined));
    return clientP;
  };
  const fetchFee = (u: string) =>
    rpc<string>(u, "eth_gasPrice", [], 5_000).then((h) => {
      // headroom for a rising base fee: only the base fee is charged
      const value = BigInt(h) * 2n;
      fee = { value, at: Date.now() };
      return value;
    });

  return {
    chainId,
    client,
    sponsor,
    relay(validate) {
      if (!sponsor) throw new WalletError("not_configured", "the wallet has no gas sponsor (SPONSOR_PRIVATE_KEY)");
      relayP ??= client().then((c) => Relay.create({ client: c, plugins: [Relay.feePayer({ account: sponsor, feeToken: config.defaultToken, validate })] }));
      relayP.catch(() => (relayP = undefined));
      return relayP;
    },
    async maxFeePerGas() {
      const u = need();
      if (fee && Date.now() - fee.at < 30_000) return fee.value;
      if (fee) {
        // stale: answer with the cached value, refresh in the background
        feeRefresh ??= fetchFee(u).finally(() => (feeRefresh = undefined));
        feeRefresh.catch(() => undefined);
        return fee.value;
      }
      feeRefresh ??= fetchFee(u).finally(() => (feeRefresh = undefined));
      return feeRefresh;
    },
    async sendRawSync(raw, timeoutMs) {
      const u = need();
      let receipt: RawReceipt;
      try {
        receipt = await rpc<RawReceipt>(u, "eth_sendRawTransactionSync", [raw], timeoutMs);
      } catch (error) {
        if (error instanceof JsonRpcError && classifySendError(error) === "refused") throw new NodeRejectedError(error.message, error.code as number);
        throw error;
      }
      return normalizeReceipt(receipt);
    },
    async getReceipt(hash) {
      const r = await rpc<RawReceipt | null>(need(), "eth_getTransactionReceipt", [hash], 5_000);
      return r ? normalizeReceipt(r) : null;
    },
    async waitForReceipt(hash, timeoutMs, pollMs = 250) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          const r = await this.getReceipt(hash);
          if (r) return r;
        } catch (error) {
          if (error instanceof WalletError) throw error;
          // transient RPC failure: keep waiting until the deadline
        }
        if (Date.now() + pollMs > deadline) return null;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    async blockTimestamp(blockNumber) {
      try {
        const b = await rpc<{ timestamp: string } | null>(need(), "eth_getBlockByNumber", [`0x${blockNumber.toString(16)}`, false], 5_000);
        return b ? new Date(Number(BigInt(b.timestamp)) * 1000) : null;
      } catch {
        return null;
      }
    },
  };
}
