import { Errors, Method, type Receipt } from "mppx";
import { Methods, SessionLegacy } from "mppx/tempo";
import { isAddressEqual, zeroAddress, type Account, type Address, type Client, type Hash, type Hex } from "viem";
import { DEVNET_CHAIN_ID, PATH_USD } from "../constants.ts";

const { Chain, Voucher } = SessionLegacy.Session;

/** What the server knows of one channel (amounts in base units). */
export type LegacyChannelState = {
  channelId: Hex;
  payer: Address;
  payee: Address;
  token: Address;
  /** Voucher authority: the channel's authorizedSigner, or the payer when that is zero. */
  signer: Address;
  deposit: bigint;
  /** Highest voucher accepted (signature checked), the amount the payer has authorized in total. */
  acceptedCumulative: bigint;
  /** What the server charged for requests it served; never above acceptedCumulative. */
  spent: bigint;
  /** Requests charged. */
  units: number;
  /** Cumulative amount already paid out on chain (settle / close). */
  settledOnChain: bigint;
  highestVoucher?: { cumulativeAmount: bigint; signature: Hex };
  closed: boolean;
};

/** One on-chain step the server took, for logs and tests. */
export type LegacySessionEvent =
  | { type: "opened"; channelId: Hex; payer: Address; deposit: bigint; txHash: Hash | undefined }
  | { type: "toppedUp"; channelId: Hex; additionalDeposit: bigint; newDeposit: bigint; txHash: Hash }
  | { type: "settled"; channelId: Hex; cumulativeAmount: bigint; delta: bigint; txHash: Hash }
  | { type: "closed"; channelId: Hex; cumulativeAmount: bigint; delta: bigint; refund: bigint; txHash: Hash };

export type LegacySessionParameters = {
  /** The payee: receives the payouts and signs settle/close (the escrow only accepts them from the payee). */
  account: Account;
  /** The session escrow (our StreamChannelEscrow on the devnet). */
  escrowContract: Address;
  getClient: (parameters?: { chainId?: number | undefined }) => Client;
  /** Price of one request, in token units as a decimal string ("0.002"). */
  amount: string;
  currency?: Address;
  decimals?: number;
  /** Deposit the challenge suggests ("1"). */
  suggestedDeposit?: string;
  unitType?: string;
  onEvent?: (event: LegacySessionEvent) => void;
};

/**
 * A server-side mppx method for MPP's legacy contract-backed sessions (session protocol "v1").
 *
 * mppx 0.11.0 removed its legacy session server (CHANGELOG 0.8.16, e2b2a8a) and kept only the v1 client
 * (`tempo.sessionLegacy`); its server `tempo.session()` speaks TIP-1034 (v2), whose precompile escrow (active from
 * T5) does not exist on the T4 devnet and whose channel ids bind the open transaction's expiring-nonce hash, which no
 * contract can see. So the devnet's session services run this method instead: built with mppx's own
 * `Method.toServer(Methods.session, …)`, it advertises `sessionProtocol: "v1"` with our escrow as `escrowContract`,
 * and does every chain step with the helpers mppx still ships for v1 (`SessionLegacy.Session.Chain`:
 * broadcastOpenTransaction, broadcastTopUpTransaction, settleOnChain, closeOnChain; `Voucher.verifyVoucher`).
 *
 * Accounting: each billable request (open or voucher credential on a content request) charges `amount`; the voucher
 * must authorize at least everything charged. An open or voucher with nothing new to charge (e.g. an open at
 * cumulative 0) is a management update answered 204. `settle(channelId)` pays out the highest voucher; a close
 * credential must cover what was charged and pays the rest, refunding the deposit's remainder.
 */
export function legacySession(p: LegacySessionParameters) {
  const { account, escrowContract, getClient, amount, currency = PATH_USD, decimals = 6, suggestedDeposit, unitType = "request", onEvent } = p;
  const channels = new Map<string, LegacyChannelState>();
  /** Per-channel queue: credentials of one channel are applied one at a time. */
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(channelId: Hex, work: () => Promise<T>): Promise<T> => {
    const key = channelId.toLowerCase();
    const run = (queues.get(key) ?? Promise.resolve()).then(work, work);
    queues.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  };
  const client = () => getClient({ chainId: DEVNET_CHAIN_ID });
  /**
   * The payee's own transactions (settle, close) one at a time: two sent at once read the same account nonce and the
   * node refuses the second as an underpriced replacement.
   */
  let payeeQueue: Promise<unknown> = Promise.resolve();
  const asPayee = <T>(work: () => Promise<T>): Promise<T> => {
    const run = payeeQueue.then(work, work);
    payeeQueue = run.catch(() => undefined);
    return run;
  };

  const stateOf = (channelId: Hex): LegacyChannelState => {
    const state = channels.get(channelId.toLowerCase());
    if (!state) throw new Errors.ChannelNotFoundError({ reason: `channel ${channelId} was not opened with this server` });
    if (state.closed) throw new Errors.ChannelClosedError({ reason: `channel ${channelId} is closed` });
    return state;
  };
  const checkVoucher = async (state: LegacyChannelState, cumulativeAmount: bigint, signature: Hex) => {
    if (cumulativeAmount > state.deposit) throw new Errors.AmountExceedsDepositError({ reason: `voucher ${cumulativeAmount} above deposit ${state.deposit}` });
    const ok = await Voucher.verifyVoucher(escrowContract, DEVNET_CHAIN_ID, { channelId: state.channelId, cumulativeAmount, signature }, state.signer);
    if (!ok) throw new Errors.InvalidSignatureError({ reason: "voucher not signed by the channel signer" });
  };
  /**
   * Charges one request against a checked voucher: the voucher must cover everything charged so far plus `price`;
   * it becomes the highest accepted voucher. A management update (`billable` false) accepts nothing: the legacy
   * client closes at the highest cumulative its receipts report, so an unused open closes at 0.
   */
  const accept = (state: LegacyChannelState, cumulativeAmount: bigint, signature: Hex, price: bigint, billable: boolean): number => {
    if (!billable) return 0;
    if (cumulativeAmount < state.spent + price)
      throw new Errors.VerificationFailedError({ reason: `voucher ${cumulativeAmount} does not cover ${state.spent} charged + ${price}` });
    state.acceptedCumulative = cumulativeAmount;
    state.highestVoucher = { cumulativeAmount, signature };
    state.spent += price;
    state.units++;
    return 1;
  };
  const receipt = (challengeId: string, state: LegacyChannelState, units: number, txHash?: Hash): Receipt.Receipt =>
    ({
      method: "tempo",
      intent: "session",
      status: "success",
      timestamp: new Date().toISOString(),
      reference: state.channelId,
      challengeId,
      channelId: state.channelId,
      acceptedCumulative: state.acceptedCumulative.toString(),
      spent: state.spent.toString(),
      units,
      ...(txHash ? { txHash } : {}),
    }) as Receipt.Receipt;

  const method = Method.toServer(Methods.session, {
    defaults: { amount, currency, decimals, unitType, recipient: account.address, ...(suggestedDeposit ? { suggestedDeposit } : {}) },
    request({ request }) {
      return { ...request, chainId: DEVNET_CHAIN_ID, escrowContract, recipient: account.address, sessionProtocol: "v1" };
    },
    async broadcast({ credential, envelope }) {
      const { challenge, payload } = credential;
      const price = BigInt(challenge.request.amount);
      // a content request is billable; a bodyless POST is the client managing its channel (open/close/top-up)
      const billable = envelope?.capturedRequest ? envelope.capturedRequest.method !== "POST" || envelope.capturedRequest.hasBody === true : true;
      const channelId = payload.channelId as Hex;
      switch (payload.action) {
        case "open":
          return serial(channelId, async () => {
            if (channels.get(channelId.toLowerCase())?.closed) throw new Errors.ChannelClosedError({ reason: `channel ${channelId} is closed` });
            const opened = await Chain.broadcastOpenTransaction({
              client: client(),
              serializedTransaction: payload.transaction as Hex,
              escrowContract,
              channelId,
              recipient: account.address,
              currency,
              challengeExpires: challenge.expires,
            });
            const onChain = opened.onChain;
            const state: LegacyChannelState = channels.get(channelId.toLowerCase()) ?? {
              channelId,
              payer: onChain.payer,
              payee: onChain.payee,
              token: onChain.token,
              signer: isAddressEqual(onChain.authorizedSigner, zeroAddress) ? onChain.payer : onChain.authorizedSigner,
              deposit: onChain.deposit,
              acceptedCumulative: 0n,
              spent: 0n,
              units: 0,
              settledOnChain: onChain.settled,
              closed: false,
            };
            channels.set(channelId.toLowerCase(), state);
            onEvent?.({ type: "opened", channelId, payer: state.payer, deposit: state.deposit, txHash: opened.txHash });
            const cumulativeAmount = BigInt(payload.cumulativeAmount);
            await checkVoucher(state, cumulativeAmount, payload.signature as Hex);
            return receipt(challenge.id, state, accept(state, cumulativeAmount, payload.signature as Hex, price, billable), opened.txHash);
          });
        case "voucher":
          return serial(channelId, async () => {
            const state = stateOf(channelId);
            const cumulativeAmount = BigInt(payload.cumulativeAmount);
            await checkVoucher(state, cumulativeAmount, payload.signature as Hex);
            return receipt(challenge.id, state, accept(state, cumulativeAmount, payload.signature as Hex, price, billable));
          });
        case "topUp":
          return serial(channelId, async () => {
            const state = stateOf(channelId);
            const additionalDeposit = BigInt(payload.additionalDeposit);
            const done = await Chain.broadcastTopUpTransaction({
              client: client(),
              serializedTransaction: payload.transaction as Hex,
              escrowContract,
              channelId,
              currency,
              declaredDeposit: additionalDeposit,
              previousDeposit: state.deposit,
              challengeExpires: challenge.expires,
            });
            state.deposit = done.newDeposit;
            onEvent?.({ type: "toppedUp", channelId, additionalDeposit, newDeposit: done.newDeposit, txHash: done.txHash });
            return receipt(challenge.id, state, 0, done.txHash);
          });
        case "close":
          return serial(channelId, async () => {
            const state = stateOf(channelId);
            const cumulativeAmount = BigInt(payload.cumulativeAmount);
            if (cumulativeAmount < state.spent)
              throw new Errors.VerificationFailedError({ reason: `close at ${cumulativeAmount} below the ${state.spent} already charged` });
            if (cumulativeAmount > state.settledOnChain) await checkVoucher(state, cumulativeAmount, payload.signature as Hex);
            const txHash = await asPayee(() =>
              Chain.closeOnChain(client(), escrowContract, { channelId, cumulativeAmount, signature: payload.signature as Hex }, { account }),
            );
            const paid = cumulativeAmount > state.settledOnChain ? cumulativeAmount : state.settledOnChain;
            const delta = paid - state.settledOnChain;
            const refund = state.deposit - paid;
            state.settledOnChain = paid;
            state.acceptedCumulative = paid;
            state.spent = paid;
            state.closed = true;
            onEvent?.({ type: "closed", channelId, cumulativeAmount: paid, delta, refund, txHash });
            return receipt(challenge.id, state, 0, txHash);
          });
      }
    },
    respond({ credential, receipt: r }) {
      const action = credential.payload.action;
      if (action === "close" || action === "topUp" || (r as { units?: number }).units === 0) return new Response(null, { status: 204 });
      return undefined;
    },
  });

  /** Pays out the highest accepted voucher of a channel (no-op when nothing new). Returns the tx hash, if any. */
  const settle = (channelId: Hex): Promise<Hash | undefined> =>
    serial(channelId, async () => {
      const state = stateOf(channelId);
      const voucher = state.highestVoucher;
      if (!voucher || voucher.cumulativeAmount <= state.settledOnChain) return undefined;
      const txHash = await asPayee(() => Chain.settleOnChain(client(), escrowContract, { channelId, ...voucher }, { account }));
      const delta = voucher.cumulativeAmount - state.settledOnChain;
      state.settledOnChain = voucher.cumulativeAmount;
      onEvent?.({ type: "settled", channelId, cumulativeAmount: voucher.cumulativeAmount, delta, txHash });
      return txHash;
    });

  return {
    method,
    settle,
    /** A copy of a channel's state (undefined if never opened here). */
    channel: (channelId: Hex): LegacyChannelState | undefined => {
      const s = channels.get(channelId.toLowerCase());
      return s ? { ...s } : undefined;
    },
    /** Copies of every channel's state. */
    channels: (): LegacyChannelState[] => [...channels.values()].map((s) => ({ ...s })),
  };
}

export type LegacySessionServer = ReturnType<typeof legacySession>;
