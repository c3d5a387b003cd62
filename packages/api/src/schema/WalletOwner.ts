import type { GraphqlContext } from "./builder.ts";
import { builder } from "./builder.ts";
import { ownerOps, type OwnerSessionView, type OwnerUser } from "../wallet/owner.ts";
import type { WalletContext } from "../wallet/context.ts";
import { WalletError } from "../wallet/WalletError.ts";

// The wallet owner's API over GraphQL (docs/wallet.md § Owner console): the same operations as REST under
// /api/wallet/sessions…, /balances (wallet/owner.ts ownerOps: one implementation), authenticated by the passkey
// session cookie only (a bearer token is an agent, not the owner), and the same error codes in extensions.code.
// Mutations carrying the cookie pass the same cross-site check as REST before routing (auth/checkRequestOrigin.ts).

type Ops = typeof ownerOps;
type SessionList = Awaited<ReturnType<Ops["sessions"]>>;
type PaymentPage = Awaited<ReturnType<Ops["payments"]>>;
type Payment = PaymentPage["items"][number];
type Balances = Awaited<ReturnType<Ops["balances"]>>;
type Balance = Balances["balances"][number];
type RevokeAnswer = Awaited<ReturnType<Ops["revoke"]>>;
type RevokeRequest = NonNullable<RevokeAnswer["chain_revoke_request"]>;
type LastPayment = NonNullable<OwnerSessionView["last_payment"]>;

async function owner(ctx: GraphqlContext): Promise<{ wallet: WalletContext; user: OwnerUser }> {
  if (!ctx.walletOwner) throw new WalletError("not_configured", "the wallet owner API is not available on this endpoint");
  return ctx.walletOwner();
}

const ChainRevokeRef = builder.objectRef<OwnerSessionView["chain_revoke"]>("WalletChainRevoke").implement({
  description: "The on-chain step of a revoke (the passkey signs AccountKeychain.revokeKey through our relay).",
  fields: (t) => ({
    status: t.string({ nullable: true, description: "pending | confirmed | failed; null when nothing is to be revoked on chain", resolve: (c) => c.status }),
    txHash: t.string({ nullable: true, resolve: (c) => c.tx_hash }),
    explorerUrl: t.string({ nullable: true, resolve: (c) => c.explorer_url }),
    error: t.string({ nullable: true, resolve: (c) => c.error }),
    updatedAt: t.string({ nullable: true, resolve: (c) => c.updated_at }),
  }),
});

const LastPaymentRef = builder.objectRef<LastPayment>("WalletLastPayment").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    createdAt: t.string({ resolve: (p) => p.created_at! }),
    to: t.string({ resolve: (p) => p.to! }),
    amountWei: t.field({ type: "Uint256", resolve: (p) => BigInt(p.amount_wei!) }),
    status: t.string({ description: "reserved | sent | failed", resolve: (p) => p.status! }),
    txHash: t.string({ nullable: true, resolve: (p) => p.tx_hash }),
  }),
});

const WalletSessionRef = builder.objectRef<OwnerSessionView>("WalletSession").implement({
  description: "An agent session of the signed-in owner, with its usage (exact base units).",
  fields: (t) => ({
    id: t.id({ resolve: (s) => s.session_id }),
    agentLabel: t.string({ nullable: true, resolve: (s) => s.agent_label }),
    agentKeyAddress: t.string({ resolve: (s) => s.agent_key_address }),
    token: t.exposeString("token"),
    status: t.exposeString("status", { description: "active | expired | revoked | pending (not authorized on chain yet)" }),
    createdAt: t.string({ resolve: (s) => s.created_at! }),
    expiresAt: t.string({ resolve: (s) => s.expires_at! }),
    spendCapWei: t.field({ type: "Uint256", resolve: (s) => BigInt(s.spend_cap_wei) }),
    perCallCapWei: t.field({ type: "Uint256", resolve: (s) => BigInt(s.per_call_cap_wei) }),
    spendUsedWei: t.field({ type: "Uint256", description: "spent: sent payments", resolve: (s) => BigInt(s.spend_used_wei) }),
    spendReservedWei: t.field({ type: "Uint256", description: "in flight", resolve: (s) => BigInt(s.spend_reserved_wei) }),
    spendRemainingWei: t.field({ type: "Uint256", description: "cap − spent − reserved, never negative", resolve: (s) => BigInt(s.spend_remaining_wei) }),
    onChainAuthorizedAt: t.string({ nullable: true, resolve: (s) => s.on_chain_authorized_at }),
    authorizeTxHash: t.string({ nullable: true, resolve: (s) => s.authorize_tx_hash }),
    revokedAt: t.string({ nullable: true, resolve: (s) => s.revoked_at }),
    revokedBy: t.string({ nullable: true, description: "owner | agent", resolve: (s) => s.revoked_by }),
    chainRevoke: t.field({ type: ChainRevokeRef, resolve: (s) => s.chain_revoke }),
    paymentsCount: t.int({ resolve: (s) => s.payments_count }),
    lastPayment: t.field({ type: LastPaymentRef, nullable: true, resolve: (s) => s.last_payment }),
  }),
});

const WalletSessionListRef = builder.objectRef<SessionList>("WalletSessionList").implement({
  fields: (t) => ({
    managedAddress: t.string({ resolve: (l) => l.managed_address }),
    items: t.field({ type: [WalletSessionRef], description: "newest first", resolve: (l) => l.items }),
  }),
});

const WalletPaymentRef = builder.objectRef<Payment>("WalletPayment").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    createdAt: t.string({ resolve: (p) => p.created_at! }),
    to: t.exposeString("to"),
    amountWei: t.field({ type: "Uint256", resolve: (p) => BigInt(p.amount_wei) }),
    token: t.exposeString("token"),
    memo: t.string({ nullable: true, resolve: (p) => p.memo }),
    status: t.exposeString("status", { description: "reserved | sent | failed" }),
    txHash: t.string({ nullable: true, resolve: (p) => p.tx_hash }),
    explorerUrl: t.string({ nullable: true, resolve: (p) => p.explorer_url }),
    error: t.string({ nullable: true, resolve: (p) => p.error }),
  }),
});

const WalletPaymentPageRef = builder.objectRef<PaymentPage>("WalletPaymentPage").implement({
  fields: (t) => ({
    sessionId: t.id({ resolve: (p) => p.session_id }),
    items: t.field({ type: [WalletPaymentRef], description: "newest first", resolve: (p) => p.items }),
    nextCursor: t.string({ nullable: true, description: "pass as `after` for the next page; null on the last page", resolve: (p) => p.next_cursor }),
  }),
});

const WalletBalanceRef = builder.objectRef<Balance>("WalletBalance").implement({
  fields: (t) => ({
    token: t.exposeString("token"),
    symbol: t.string({ nullable: true, resolve: (b) => b.symbol }),
    decimals: t.exposeInt("decimals"),
    balanceWei: t.field({ type: "Uint256", resolve: (b) => BigInt(b.balance_wei) }),
  }),
});

const WalletBalancesRef = builder.objectRef<Balances>("WalletBalances").implement({
  description: "The owner account's balances, read from the chain at request time.",
  fields: (t) => ({
    managedAddress: t.string({ resolve: (b) => b.managed_address }),
    readAt: t.string({ resolve: (b) => b.read_at }),
    balances: t.field({ type: [WalletBalanceRef], resolve: (b) => b.balances }),
  }),
});

const WalletChainRef = builder.objectRef<RevokeRequest["chain"]>("WalletChain").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    rpcUrl: t.string({ nullable: true, resolve: (c) => c.rpc_url }),
    relayUrl: t.string({ resolve: (c) => c.relay_url }),
  }),
});

const WalletRevokeRequestRef = builder.objectRef<RevokeRequest>("WalletChainRevokeRequest").implement({
  description: "What the passkey must sign to revoke the keys on chain: one transaction of AccountKeychain.revokeKey calls through the relay.",
  fields: (t) => ({
    sessionIds: t.idList({ resolve: (r) => r.session_ids }),
    agentKeyAddresses: t.stringList({ resolve: (r) => r.agent_key_addresses }),
    accountKeychainAddress: t.string({ resolve: (r) => r.account_keychain_address }),
    managedAddress: t.string({ resolve: (r) => r.managed_address }),
    credentialId: t.string({ resolve: (r) => r.credential_id }),
    publicKeyUncompressed: t.string({ resolve: (r) => r.public_key_uncompressed }),
    chain: t.field({ type: WalletChainRef, resolve: (r) => r.chain }),
    token: t.exposeString("token"),
  }),
});

const WalletRevokeRef = builder.objectRef<RevokeAnswer>("WalletRevoke").implement({
  fields: (t) => ({
    sessions: t.field({ type: [WalletSessionRef], resolve: (r) => r.sessions }),
    chainRevokeRequest: t.field({
      type: WalletRevokeRequestRef,
      nullable: true,
      description: "null when nothing is left to revoke on chain",
      resolve: (r) => r.chain_revoke_request,
    }),
  }),
});

builder.queryFields((t) => ({
  walletSessions: t.field({
    type: WalletSessionListRef,
    description: "The signed-in owner's agent sessions (passkey session cookie), newest first, with usage.",
    resolve: async (_root, _args, ctx) => {
      const { wallet, user } = await owner(ctx);
      return ownerOps.sessions(wallet, user);
    },
  }),
  walletSession: t.field({
    type: WalletSessionRef,
    description: "One of the owner's sessions; another owner's id is not_found.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { wallet, user } = await owner(ctx);
      return ownerOps.session(wallet, user, String(args.id));
    },
  }),
  walletSessionPayments: t.field({
    type: WalletPaymentPageRef,
    description: "A session's payments, newest first (`first` 1–100, default 20; `after` = the previous page's nextCursor).",
    args: { id: t.arg.id({ required: true }), first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const { wallet, user } = await owner(ctx);
      return ownerOps.payments(wallet, user, String(args.id), {
        limit: args.first === null || args.first === undefined ? null : String(args.first),
        cursor: args.after ?? null,
      });
    },
  }),
  walletBalances: t.field({
    type: WalletBalancesRef,
    description: "The owner account's token balances, read from the chain.",
    resolve: async (_root, _args, ctx) => {
      const { wallet, user } = await owner(ctx);
      return ownerOps.balances(wallet, user);
    },
  }),
}));

builder.mutationFields((t) => ({
  revokeWalletSession: t.field({
    type: WalletRevokeRef,
    description: "Stops the session now (payments refused from this moment) and answers the on-chain revoke to sign.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { wallet, user } = await owner(ctx);
      return ownerOps.revoke(wallet, user, String(args.id));
    },
  }),
  revokeAllWalletSessions: t.field({
    type: WalletRevokeRef,
    description: "Revokes every session that is neither revoked nor expired; one on-chain request for every key still to revoke.",
    resolve: async (_root, _args, ctx) => {
      const { wallet, user } = await owner(ctx);
      return ownerOps.revokeAll(wallet, user);
    },
  }),
  confirmWalletRevoke: t.field({
    type: [WalletSessionRef],
    description: "Records the on-chain revoke the page submitted (`txHash`) or could not submit (`error`).",
    args: { sessionIds: t.arg.idList({ required: true }), txHash: t.arg.string({ required: false }), error: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const { wallet, user } = await owner(ctx);
      return (
        await ownerOps.confirmRevoke(wallet, user, {
          session_ids: args.sessionIds.map(String),
          tx_hash: args.txHash ?? undefined,
          error: args.error ?? undefined,
        })
      ).sessions;
    },
  }),
}));
