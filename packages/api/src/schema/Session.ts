import type { SessionLife, SessionStep } from "../services/types.ts";
import { builder } from "./builder.ts";

// A session row's payment channel (Event.session): its escrow's events decoded from the stored raw logs.

const SessionStepRef = builder.interfaceRef<SessionStep>("SessionStep").implement({
  description: "One event of a session's escrow: where and when it happened.",
  fields: (t) => ({
    txHash: t.exposeString("txHash", { description: "Its transaction." }),
    logIndex: t.exposeInt("logIndex", { description: "Its log index in the block." }),
    ts: t.expose("ts", { type: "DateTime", description: "Block time." }),
  }),
});

const SessionOpenedRef = builder.objectRef<NonNullable<SessionLife["opened"]>>("SessionOpened").implement({
  description: "The escrow's ChannelOpened: the payer's first deposit.",
  interfaces: [SessionStepRef],
  fields: (t) => ({ tokenAddress: t.exposeString("tokenAddress"), depositWei: t.expose("depositWei", { type: "Uint256" }) }),
});

const SessionTopUpRef = builder.objectRef<SessionLife["topUps"][number]>("SessionTopUp").implement({
  description: "A TopUp: more deposit from the payer.",
  interfaces: [SessionStepRef],
  fields: (t) => ({
    additionalDepositWei: t.expose("additionalDepositWei", { type: "Uint256" }),
    newDepositWei: t.expose("newDepositWei", { type: "Uint256", description: "The channel's deposit after it." }),
  }),
});

const SessionSettlementRef = builder.objectRef<SessionLife["settlements"][number]>("SessionSettlement").implement({
  description: "A Settled: the payee redeemed a voucher.",
  interfaces: [SessionStepRef],
  fields: (t) => ({
    cumulativeAmountWei: t.expose("cumulativeAmountWei", { type: "Uint256", description: "The voucher's cumulative amount." }),
    deltaPaidWei: t.expose("deltaPaidWei", { type: "Uint256", description: "What this settlement paid the payee." }),
    newSettledWei: t.expose("newSettledWei", { type: "Uint256", description: "The channel's settled total after it." }),
  }),
});

const SessionCloseRef = builder.objectRef<NonNullable<SessionLife["closed"]>>("SessionClose").implement({
  description: "The ChannelClosed: the channel's end.",
  interfaces: [SessionStepRef],
  fields: (t) => ({
    settledToPayeeWei: t.expose("settledToPayeeWei", {
      type: "Uint256",
      description: "The channel's cumulative settled total (not only what the close paid).",
    }),
    refundedToPayerWei: t.expose("refundedToPayerWei", { type: "Uint256" }),
  }),
});

export const SessionRef = builder.objectRef<SessionLife>("Session").implement({
  description:
    "A methodology v0.3 session's payment channel as its escrow logged it: the events of the transactions that produced a row of the channel, in chain order (docs/methodology.md, v0.3).",
  fields: (t) => ({
    channelId: t.exposeString("channelId"),
    escrowAddress: t.exposeString("escrowAddress"),
    escrowLabel: t.exposeString("escrowLabel"),
    payer: t.exposeString("payer"),
    payee: t.exposeString("payee"),
    tokenAddress: t.exposeString("tokenAddress", { nullable: true, description: "ChannelOpened's token, else the escrow's registry default token." }),
    depositWei: t.expose("depositWei", {
      type: "Uint256",
      nullable: true,
      description: "What the payer put in: the last TopUp's newDeposit, else the opening deposit; null when neither is stored.",
    }),
    settledWei: t.expose("settledWei", {
      type: "Uint256",
      description: "What the payee was paid in total: the close's settledToPayee, else the last Settled's newSettled, else 0.",
    }),
    refundedWei: t.expose("refundedWei", {
      type: "Uint256",
      nullable: true,
      description: "What went back to the payer at close; null while the channel is open.",
    }),
    opened: t.expose("opened", { type: SessionOpenedRef, nullable: true }),
    topUps: t.expose("topUps", { type: [SessionTopUpRef] }),
    settlements: t.expose("settlements", { type: [SessionSettlementRef] }),
    closed: t.expose("closed", { type: SessionCloseRef, nullable: true }),
  }),
});
