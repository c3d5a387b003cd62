import { z } from "zod";

// Output schemas of the tools (structured content). The ledger reads are GraphQL answers, camelCase as GraphQL
// serves them; the wallet and webhook answers are the REST bodies, snake_case as REST serves them.

const uint = z.string().describe('uint256 as a decimal string of base units (the token has 6 decimals: "1250000" = 1.25)');
const iso = z.string().describe("ISO 8601 UTC time");
const nullable = <T extends z.ZodType>(t: T) => t.nullable();

export const eventShape = {
  id: z.string().describe("ledger row id (agent_events.id)"),
  ts: iso.describe("block time"),
  agentId: z.string().describe("the watched agent or service whose point of view the row takes"),
  agentLabel: z.string(),
  agentCategory: z.string(),
  counterpartyAddress: z.string().describe("lowercase address of the other side"),
  counterpartyLabel: z.string(),
  counterpartyCategory: nullable(z.string()),
  kind: z.string().describe("payment_sent | payment_received | fee_paid"),
  amountWei: uint,
  tokenAddress: z.string(),
  txHash: z.string(),
  logIndex: z.number().int(),
  sourceBlock: z.number().int(),
  methodologyVersion: z.string(),
  routedToAddress: z.string().describe('gateway Pattern A provider address, or ""'),
  routedToLabel: z.string(),
  routedFingerprint: nullable(z.string()).describe("gateway Pattern B memo fingerprint"),
  explorerUrl: z.string(),
  // methodology v0.3 (null on older rows)
  attribution: nullable(z.enum(["recipient_wallet", "server_id_host", "server_id_realm", "session_escrow"])).describe(
    "which rule attributed the row: the recipient's registered wallet, the MPP memo's serverId (service host or directory realm), or a session escrow's event",
  ),
  clientFingerprint: nullable(z.string()).describe("the MPP memo's clientId (0x + 20 hex); null for an anonymous client"),
  clientLabel: nullable(z.string()).describe("the registry's label of clientFingerprint"),
  channelId: nullable(z.string()).describe("a session row's payment channel (0x + 64 hex)"),
};
export const Event = z.object(eventShape);

/** One token's share of a summed amount (the API's TokenAmount): the amount in that token's own units. */
export const TokenAmount = z.object({
  tokenAddress: z.string(),
  symbol: nullable(z.string()).describe("the registry's symbol, e.g. pathUSD; null for a token it does not list"),
  decimals: nullable(z.number().int()).describe("divide amountSumWei by 10^decimals for tokens"),
  currency: nullable(z.string()).describe("e.g. USD: amounts of one currency may be compared, raw units never added across tokens"),
  txCount: z.number().int(),
  amountSumWei: z.string().describe("uint256 decimal string in this token's base units"),
});
const byToken = z.array(TokenAmount).describe("the same figures split by token, largest amount first; they add up to the figures beside them");

const topEntity = z.object({ id: z.string(), label: z.string(), category: z.string(), txCount: z.number().int(), amountSumWei: uint, byToken });
export const Provider = z.object({
  key: z.string().describe("provider address (pattern address) or memo fingerprint (pattern fingerprint)"),
  pattern: z.enum(["address", "fingerprint"]),
  address: nullable(z.string()),
  fingerprint: nullable(z.string()),
  label: nullable(z.string()),
  txCount: z.number().int(),
  amountSumWei: uint,
  byToken,
  firstSeenAt: iso,
  lastSeenAt: iso,
});

export const Dashboard = z.object({
  window: z.string(),
  windowHours: z.number().int(),
  txCount: z.number().int().describe("payments in the window (a payment between two watched entities counts once; fees excluded)"),
  amountSumWei: uint,
  byToken,
  agentsActive: z.number().int(),
  providersDetected: z.number().int(),
  topServices: z.array(topEntity),
  topAgents: z.array(topEntity),
  topProviders: z.array(Provider),
  recentEvents: z.array(Event).describe("the 20 newest rows"),
});

const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextCursor: nullable(z.string()).describe("pass back as `cursor` for the next page; null at the end") });

const notAsked = "absent when another list is being paged (a cursor of another list was given)";
export const SearchResult = z.object({
  q: z.string(),
  events: page(Event).optional().describe(`rows by transaction hash or counterparty; ${notAsked}`),
  entities: page(z.object({ id: z.string(), label: z.string(), category: z.string(), kind: z.string(), wallets: z.array(z.string()) }))
    .optional()
    .describe(`services and agents; ${notAsked}`),
  addresses: page(z.object({ address: z.string(), label: z.string(), category: nullable(z.string()), source: z.string() }))
    .optional()
    .describe(`labelled addresses; ${notAsked}`),
});

export const EntityDetail = z.object({
  id: z.string(),
  label: z.string(),
  category: z.string(),
  kind: z.string().describe("service | agent"),
  active: z.boolean(),
  wallets: z.array(z.string()),
  txCount24h: z.number().int(),
  amountSumWei24h: uint,
  byToken24h: byToken,
  txCount7d: z.number().int(),
  amountSumWei7d: uint,
  byToken7d: byToken,
  lastEventAt: nullable(iso),
  totals: z
    .object({ txCount: z.number().int(), amountSumWei: uint, feeCount: z.number().int(), feeSumWei: uint, byToken, feesByToken: byToken })
    .describe("all time: payments sent + received, fees paid"),
  trend: z.array(z.object({ day: z.string(), txCount: z.number().int(), amountSumWei: uint, byToken })).describe("the 30 UTC days ending today, oldest first"),
  recentEvents: page(Event),
  providers: nullable(page(Provider)).describe("only for tempo-gateway-mpp: its providers by amount; null otherwise"),
});

const step = { txHash: z.string(), logIndex: z.number().int(), ts: iso.describe("block time") };
export const Session = z.object({
  channelId: z.string(),
  escrowAddress: z.string(),
  escrowLabel: z.string(),
  payer: z.string(),
  payee: z.string(),
  tokenAddress: nullable(z.string()),
  depositWei: nullable(uint).describe("what the payer put in (the last top-up's new deposit, else the opening deposit)"),
  settledWei: uint.describe("what the payee was paid in total"),
  refundedWei: nullable(uint).describe("what went back to the payer at close; null while open"),
  opened: nullable(z.object({ ...step, tokenAddress: z.string(), depositWei: uint })),
  topUps: z.array(z.object({ ...step, additionalDepositWei: uint, newDepositWei: uint })),
  settlements: z.array(z.object({ ...step, cumulativeAmountWei: uint, deltaPaidWei: uint, newSettledWei: uint })),
  closed: nullable(z.object({ ...step, settledToPayeeWei: uint.describe("the channel's cumulative settled total"), refundedToPayerWei: uint })),
});

export const EventDetail = z.object({
  ...eventShape,
  relatedEvents: z.array(Event).describe("the other rows of the same transaction"),
  session: nullable(Session).describe("a session row's payment channel: deposit, settlements, close and refund as its escrow logged them; null for other rows"),
});

export const EventList = z.object({
  entityId: nullable(z.string()),
  items: z.array(Event),
  nextCursor: nullable(z.string()).describe("pass back as `cursor` (with the same entity_id) for older rows; null at the end"),
});

export const EventsSince = z.object({
  entityId: z.string(),
  afterId: z.string().describe("the after_id asked for"),
  items: z.array(Event).describe("the entity's rows with an id above afterId, oldest first (id order)"),
  lastId: z.string().describe("pass back as after_id to continue: the last row's id, or afterId when there is none"),
  more: z.boolean().describe("true when more rows above lastId exist already: call again at once"),
});

export const Registry = z.object({
  services: z.array(z.object({ id: z.string(), label: z.string(), category: z.string(), kind: z.string(), active: z.boolean(), wallets: z.array(z.string()) })),
  agents: z.array(z.object({ id: z.string(), label: z.string(), category: z.string(), kind: z.string(), active: z.boolean(), wallets: z.array(z.string()) })),
});

// Wallet (REST bodies, snake_case).
const human = z.string().describe('the same amount in tokens, e.g. "1.25"');

export const WalletStatus = z.looseObject({
  session_id: z.string(),
  status: z.string().describe("active | expired | revoked | not_authorized (only active can pay)"),
  agent_label: nullable(z.string()),
  managed_address: z.string().describe("the account that pays (the person's passkey account)"),
  token: z.string().describe("the only token this session can pay with"),
  spend_cap_wei: uint,
  per_call_cap_wei: uint,
  spend_used_wei: uint,
  spend_reserved_wei: uint,
  spend_remaining_wei: uint,
  expires_at: iso,
  revoked_at: nullable(iso),
  amounts: z.object({ spend_cap: human, per_call_cap: human, spend_used: human, spend_reserved: human, spend_remaining: human }),
});

export const PayResult = z.object({
  status: z
    .enum(["sent", "pending"])
    .describe("sent: mined; pending: broadcast, outcome not known yet — call pay again with the same idempotency_key to learn it"),
  idempotency_key: z.string().describe("re-use it (with the same to, amount and memo) to retry this payment: it is never made twice"),
  replayed: z.boolean().describe("true when this answer is the stored outcome of an earlier call with the same key"),
  tx_hash: nullable(z.string()),
  explorer_url: nullable(z.string()),
  from: z.string(),
  to: z.string(),
  amount_wei: uint,
  amount: human,
  memo: nullable(z.string()),
  token: z.string(),
  spend_used_wei_after: nullable(uint),
  spend_cap_wei: nullable(uint),
  message: nullable(z.string()),
});

export const PaymentList = z.object({
  session_id: z.string(),
  items: z.array(
    z.object({
      id: z.string(),
      status: z.string().describe("reserved | sent | failed"),
      to: z.string(),
      amount_wei: uint,
      amount: human,
      token: z.string(),
      memo: nullable(z.string()),
      tx_hash: nullable(z.string()),
      error: nullable(z.string()),
      created_at: iso,
      updated_at: iso,
    }),
  ),
});

// Webhooks (REST bodies).
const webhookFilters = z.looseObject({ agent_id: z.string() });
export const Webhook = z.looseObject({
  id: z.string(),
  status: z.string().describe("pending_verify | active | paused | disabled_by_failures"),
  callback_url: z.string(),
  label: z.string(),
  filters: webhookFilters,
});
export const WebhookList = z.object({ items: z.array(Webhook) });
export const WebhookCreated = z.looseObject({
  id: z.string(),
  status: z.string(),
  callback_url: z.string(),
  filters: webhookFilters,
  signing_secret: z.string().describe("shown once: store it to verify signatures"),
  verify_token: z.string().describe("also POSTed to the callback; the receiver echoes it to activate the subscription"),
});
export const WebhookDeleted = z.looseObject({ id: z.string() });
export const WebhookDetail = z.looseObject({ ...Webhook.shape, deliveries: z.record(z.string(), z.number().int()).describe("delivery counts by status") });
export const WebhookVerified = z.looseObject({ ok: z.literal(true), status: z.literal("active") });
export const WebhookSecret = z.looseObject({
  signing_secret: z.string().describe("the new secret, shown once; hard cutover: the old one stops signing at once (docs/webhooks.md)"),
});
const delivery = z.looseObject({ id: z.string(), type: z.string(), status: z.string(), attempts: z.number().int() });
export const DeliveryQueued = z.looseObject({ ok: z.literal(true), delivery_id: z.string().optional(), delivery });
export const RecoverResult = z.looseObject({
  ok: z.literal(true),
  id: z.string(),
  since: z.string(),
  matched_events: z.number().int().describe("rows since `since` that match the filters"),
  deliveries_created: z.number().int().describe("deliveries created for those rows that had none"),
});
export const DeliveryList = z.object({
  items: z.array(delivery),
  next_cursor: nullable(z.string()),
});
