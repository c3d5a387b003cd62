import { Challenge, Receipt } from "mppx";
import { Mppx, tempo } from "mppx/client";
import { encodeFunctionData, type Address, type Hash, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { prepareTransactionRequest, signTransaction } from "viem/actions";
import { Abis } from "viem/tempo";
import { abi as escrowAbi } from "../contracts/StreamChannelEscrow.artifact.ts";
import { DEVNET_CHAIN_ID } from "../constants.ts";
import { DevnetError } from "../errors.ts";
import { mppDevnetClientResolver } from "./mppDevnetChain.ts";
import { mppFingerprint } from "./mppFingerprint.ts";

/** One paid charge request, as the SDK saw it: the challenge it paid and the Payment-Receipt it got. */
export type MppChargePayment = {
  url: string;
  realm: string;
  /** keccak256(realm)[0..9], the serverId the SDK put in the memo. */
  serverId: Hex;
  challengeId: string;
  /** Total charged (base units), splits included. */
  amount: bigint;
  currency: Address;
  recipient: Address;
  splits: { recipient: Address; amount: bigint }[];
  /** Payment-Receipt `reference`: the transaction hash. */
  reference: Hash;
  status: number;
};

/** A session receipt as mppx's legacy client returns it (amounts are decimal strings of base units). */
export type MppSessionReceipt = {
  reference: string;
  challengeId: string;
  channelId: Hex;
  acceptedCumulative: string;
  spent: string;
  units?: number;
  txHash?: Hash;
};

/** A pay-as-you-go session with one service through the escrow (mppx `tempo.sessionLegacy`). */
export type MppSession = {
  readonly channelId: Hex | undefined;
  /** One paid request (GET): opens the channel on the first call, signs the next cumulative voucher after. */
  request(): Promise<{ status: number; receipt: MppSessionReceipt | null }>;
  /** A channel-management request (bodyless POST): opens the channel without paying for a request. */
  openOnly(): Promise<{ status: number; receipt: MppSessionReceipt | null }>;
  /** Adds `amount` (base units) to the channel's deposit: approve + topUp signed by the agent, sent as a topUp credential. */
  topUp(amount: bigint): Promise<MppSessionReceipt>;
  /** Cooperative close: the server pays the last voucher and refunds the rest; returns the close receipt (txHash). */
  close(): Promise<MppSessionReceipt | undefined>;
};

export type MppAgent = {
  address: Address;
  clientId: string;
  /** keccak256(clientId)[0..9], the clientId fingerprint in this agent's charge memos. */
  clientFingerprint: Hex;
  /** Pays one charge request with mppx's client (`tempo.charge`, this agent's clientId). */
  charge(url: string): Promise<MppChargePayment>;
  /** A session client for one session URL; `maxDeposit` (decimal units) caps what the agent ever escrows. */
  session(url: string, options?: { maxDeposit?: string }): MppSession;
};

export type CreateMppAgentParams = {
  rpcUrl: string;
  privateKey: Hex;
  /** The agent's MPP client id (mppx `clientId`): fingerprinted into every charge memo. */
  clientId: string;
  /** The session escrow this agent trusts (mppx `escrowContract`; the devnet has no default one). */
  escrowContract?: Address;
};

/**
 * A demo agent paying MPP services with the official mppx client on the devnet: charges with `tempo.charge`
 * (`clientId`, `getClient` on the devnet chain, `expectedChainId` 31337) and sessions with `tempo.sessionLegacy`
 * (the v1 client mppx 0.11.0 keeps; `escrowContract` = our escrow, so the client refuses any other).
 */
export function createMppAgent(p: CreateMppAgentParams): MppAgent {
  const account = privateKeyToAccount(p.privateKey);
  const getClient = mppDevnetClientResolver(p.rpcUrl);

  const charge = async (url: string): Promise<MppChargePayment> => {
    let challenge: Challenge.Challenge | undefined;
    const mppx = Mppx.create({
      polyfill: false,
      methods: [tempo.charge({ account, clientId: p.clientId, getClient, expectedChainId: DEVNET_CHAIN_ID })],
      onChallenge: async (c, { createCredential }) => {
        challenge = c;
        return createCredential();
      },
    });
    const res = await mppx.fetch(url);
    await res.arrayBuffer();
    const header = res.headers.get("payment-receipt");
    if (!res.ok || !header || !challenge) throw new DevnetError(`charge ${url} answered ${res.status}${header ? "" : " without a Payment-Receipt"}`);
    const receipt = Receipt.deserialize(header);
    const request = challenge.request as {
      amount: string;
      currency: Address;
      recipient: Address;
      methodDetails?: { splits?: { recipient: Address; amount: string }[] };
    };
    return {
      url,
      realm: challenge.realm,
      serverId: mppFingerprint(challenge.realm),
      challengeId: challenge.id,
      amount: BigInt(request.amount),
      currency: request.currency,
      recipient: request.recipient,
      splits: (request.methodDetails?.splits ?? []).map((s) => ({ recipient: s.recipient, amount: BigInt(s.amount) })),
      reference: receipt.reference as Hash,
      status: res.status,
    };
  };

  const session = (url: string, options: { maxDeposit?: string } = {}): MppSession => {
    if (!p.escrowContract) throw new DevnetError("createMppAgent: sessions need an escrowContract");
    const escrowContract = p.escrowContract;
    const manager = tempo.sessionLegacy({ account, getClient, escrowContract, maxDeposit: options.maxDeposit ?? "10" });
    let lastChallenge: Challenge.Challenge | null = null;
    const track = async (res: Awaited<ReturnType<typeof manager.fetch>>) => {
      const body = await res.text();
      if (res.challenge) lastChallenge = res.challenge;
      if (!res.ok) throw new DevnetError(`session ${url} answered ${res.status}: ${body.slice(0, 300)}`);
      return { status: res.status, receipt: res.receipt as MppSessionReceipt | null };
    };
    return {
      get channelId() {
        return manager.channelId;
      },
      request: async () => track(await manager.fetch(url)),
      openOnly: async () => track(await manager.fetch(url, { method: "POST" })),
      async topUp(amount) {
        const channelId = manager.channelId;
        if (!channelId || !lastChallenge) throw new DevnetError("topUp before the session was opened");
        const currency = (lastChallenge.request as { currency: Address }).currency;
        const client = getClient();
        // the same two calls mppx's clients send for a deposit: approve the escrow, then the escrow's topUp
        const prepared = await prepareTransactionRequest(client, {
          account,
          calls: [
            { to: currency, data: encodeFunctionData({ abi: Abis.tip20, functionName: "approve", args: [escrowContract, amount] }) },
            { to: escrowContract, data: encodeFunctionData({ abi: escrowAbi, functionName: "topUp", args: [channelId, amount] }) },
          ],
          feeToken: currency,
          nonceKey: "expiring",
          validBefore: Math.floor(Date.now() / 1000) + 25,
        } as never);
        const transaction = await signTransaction(client, { ...(prepared as object), account } as never);
        const method = tempo.sessionLegacy.method({ account, getClient, escrowContract });
        const credential = await method.createCredential({
          challenge: lastChallenge as never,
          context: { action: "topUp", channelId, transaction, additionalDepositRaw: amount.toString() },
        });
        const res = await fetch(url, { method: "POST", headers: { authorization: credential } });
        await res.arrayBuffer();
        const header = res.headers.get("payment-receipt");
        if (!res.ok || !header) throw new DevnetError(`topUp ${url} answered ${res.status}`);
        return Receipt.deserialize(header) as unknown as MppSessionReceipt;
      },
      close: async () => (await manager.close()) as MppSessionReceipt | undefined,
    };
  };

  return { address: account.address.toLowerCase() as Address, clientId: p.clientId, clientFingerprint: mppFingerprint(p.clientId), charge, session };
}
