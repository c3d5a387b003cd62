// The component schemas of the read API and the helpers its OpenAPI fragments use (routes/buildOpenApiDocument.ts
// assembles the document served at /api/openapi.json). Schemas are JSON Schema 2020-12
// subsets: type, properties, required, additionalProperties, items, enum, pattern, format, $ref, minItems/maxItems.
import { ERROR_CODES } from "../errors.ts";

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = { type: "string" };
const int = { type: "integer", minimum: 0 };
const uint256 = { type: "string", pattern: "^(0|[1-9][0-9]*)$", description: "uint256 as a decimal string (6-decimal token units)" };
const address = { type: "string", pattern: "^0x[0-9a-f]{40}$" };
const dateTime = { type: "string", format: "date-time" };
const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, "null"] });
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
  ...extra,
});

const eventRowProperties = {
  id: { type: "integer", minimum: 1 },
  ts: dateTime,
  agent_id: str,
  agent_label: str,
  agent_category: str,
  counterparty_address: address,
  counterparty_label: str,
  counterparty_category: { type: ["string", "null"] },
  kind: {
    type: "string",
    description:
      "payment_sent | payment_received | fee_paid; methodology v0.2 adds settlement_sent | settlement_received | funding_sent | funding_received (rows, not activity: docs/methodology.md)",
  },
  amount_wei: uint256,
  token_address: address,
  tx_hash: { type: "string", pattern: "^0x[0-9a-f]{64}$" },
  source_block: int,
  methodology_version: str,
  routed_to_address: { type: "string", pattern: "^(0x[0-9a-f]{40})?$" },
  routed_to_label: str,
  routed_fingerprint: { type: ["string", "null"], pattern: "^0x[0-9a-f]{20}$" },
  explorer_url: str,
  // methodology v0.3 (docs/methodology.md); null on v0.1/v0.2 rows
  attribution: {
    type: ["string", "null"],
    enum: ["recipient_wallet", "server_id_host", "server_id_realm", "session_escrow", null],
    description:
      "Which v0.3 rule attributed the row: the recipient's registered wallet, the MPP memo's serverId (of the service host or of its directory realm), or a session escrow's event. Null on older rows and on funding and fee rows.",
  },
  client_fingerprint: {
    type: ["string", "null"],
    pattern: "^0x[0-9a-f]{20}$",
    description: "The MPP memo's clientId; null for an anonymous client or no MPP memo.",
  },
  client_label: { type: ["string", "null"], description: "The registry's label of client_fingerprint (client_labels); null when it has none." },
  channel_id: { type: ["string", "null"], pattern: "^0x[0-9a-f]{64}$", description: "A session row's payment channel." },
};

/** Where and when one escrow event of a session happened. */
const sessionStep = { tx_hash: { type: "string", pattern: "^0x[0-9a-f]{64}$" }, log_index: int, ts: dateTime };

const providerProperties = {
  key: str,
  pattern: { type: "string", enum: ["address", "fingerprint"] },
  address: nullable(address),
  fingerprint: { type: ["string", "null"], pattern: "^0x[0-9a-f]{20}$" },
  label: { type: ["string", "null"] },
  txCount: int,
  amountSumWei: uint256,
  byToken: { type: "array", items: ref("TokenAmount"), description: "txCount / amountSumWei per token over the same span (they add up to them)." },
};

/** The head every entity schema starts with (list item and detail). */
const entityHead = {
  id: str,
  label: str,
  category: str,
  kind: {
    type: "string",
    enum: ["service", "agent", "escrow"],
    description: "escrow: a registry v3 session escrow (never in the lists; its page is an agent page)",
  },
  active: { type: "boolean" },
  wallets: { type: "array", items: address },
};
/** A per-token breakdown of the figures beside it (docs/api.md, Per-token breakdowns). */
const byToken = (description: string) => ({ type: "array", items: ref("TokenAmount"), description });

export const readSchemas = {
  Error: obj({ error: obj({ code: { type: "string", enum: [...ERROR_CODES] }, message: str }) }),
  EventRow: obj(eventRowProperties, { description: "An agent_events row (the spec's Event row, snake_case)." }),
  EventDetail: obj({
    ...eventRowProperties,
    log_index: int,
    related_events: { type: "array", items: ref("EventRow") },
    session: {
      ...nullable(
        obj({
          channel_id: { type: "string", pattern: "^0x[0-9a-f]{64}$" },
          escrow_address: address,
          escrow_label: str,
          payer: address,
          payee: address,
          token_address: { ...nullable(address), description: "ChannelOpened's token, else the escrow's registry default token." },
          deposit_wei: {
            ...nullable(uint256),
            description: "What the payer put in: the last TopUp's newDeposit, else the opening deposit; null when neither is stored.",
          },
          settled_wei: { ...uint256, description: "What the payee was paid in total: the close's settledToPayee, else the last Settled's newSettled, else 0." },
          refunded_wei: { ...nullable(uint256), description: "What went back to the payer at close; null while the channel is open." },
          opened: nullable(obj({ ...sessionStep, token_address: address, deposit_wei: uint256 })),
          top_ups: { type: "array", items: obj({ ...sessionStep, additional_deposit_wei: uint256, new_deposit_wei: uint256 }) },
          settlements: { type: "array", items: obj({ ...sessionStep, cumulative_amount_wei: uint256, delta_paid_wei: uint256, new_settled_wei: uint256 }) },
          closed: nullable(
            obj({
              ...sessionStep,
              settled_to_payee_wei: { ...uint256, description: "The channel's cumulative settled total." },
              refunded_to_payer_wei: uint256,
            }),
          ),
        }),
      ),
      description:
        "A session row's payment channel as its escrow logged it (events of the transactions with a row of the channel, in chain order); null for other rows.",
    },
  }),
  EventPage: obj({ items: { type: "array", items: ref("EventRow") }, nextCursor: { type: ["string", "null"] } }),
  TopEntity: obj({
    id: str,
    label: str,
    category: str,
    txCount: int,
    amountSumWei: uint256,
    byToken: byToken("txCount / amountSumWei per token in the window."),
  }),
  TokenAmount: obj({
    tokenAddress: str,
    symbol: { type: ["string", "null"], description: "From the registry's token allowlist; null when it does not list the token." },
    decimals: { type: ["integer", "null"] },
    currency: { type: ["string", "null"] },
    txCount: int,
    amountSumWei: uint256,
  }),
  TopProvider: obj(providerProperties),
  Provider: obj({ ...providerProperties, firstSeenAt: dateTime, lastSeenAt: dateTime }),
  Dashboard: obj({
    windowHours: int,
    txCount: int,
    agentsActive: int,
    amountSumWei: uint256,
    byToken: {
      type: "array",
      items: ref("TokenAmount"),
      description: "txCount / amountSumWei per token, largest amount first (they add up to txCount / amountSumWei).",
    },
    providersDetected: int,
    topServices: { type: "array", maxItems: 5, items: ref("TopEntity") },
    topAgents: { type: "array", maxItems: 5, items: ref("TopEntity") },
    topProviders: { type: "array", maxItems: 5, items: ref("TopProvider") },
    recentEvents: { type: "array", maxItems: 20, items: ref("EventRow") },
  }),
  EntityListItem: obj({
    ...entityHead,
    txCount24h: int,
    amountSumWei24h: uint256,
    txCount7d: int,
    amountSumWei7d: uint256,
    byToken24h: byToken("txCount24h / amountSumWei24h per token."),
    byToken7d: byToken("txCount7d / amountSumWei7d per token."),
    lastEventAt: nullable(dateTime),
  }),
  ActivitySeries: obj({
    window: str,
    bucket: { type: "string", enum: ["hour", "day"] },
    from: dateTime,
    to: dateTime,
    points: {
      type: "array",
      items: obj({ t: dateTime, txCount: int, amountSumWei: uint256, byToken: byToken("The bucket's txCount / amountSumWei per token.") }),
    },
  }),
  PreviousWindow: obj({
    window: str,
    previous: nullable(
      obj({
        from: dateTime,
        to: dateTime,
        txCount: int,
        amountSumWei: uint256,
        byToken: byToken("txCount / amountSumWei per token, largest amount first (they add up to txCount / amountSumWei)."),
        agentsActive: int,
        providersDetected: int,
      }),
    ),
  }),
  TrendPoint: obj({
    day: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    txCount: int,
    amountSumWei: uint256,
    byToken: byToken("The day's txCount / amountSumWei per token."),
  }),
  EntityDetail: {
    ...obj({
      ...entityHead,
      totals: obj({
        txCount: int,
        amountSumWei: uint256,
        feeCount: int,
        feeSumWei: uint256,
        byToken: byToken("txCount / amountSumWei per token."),
        feesByToken: byToken("feeCount / feeSumWei per token (txCount = fees)."),
      }),
      trend: { type: "array", minItems: 30, maxItems: 30, items: ref("TrendPoint") },
      recentEvents: { type: "array", maxItems: 50, items: ref("EventRow") },
      nextCursor: { type: ["string", "null"] },
      providers: { type: "array", maxItems: 100, items: ref("Provider"), description: "Only for tempo-gateway-mpp." },
    }),
    required: ["id", "label", "category", "kind", "active", "wallets", "totals", "trend", "recentEvents", "nextCursor"],
  },
  SearchResult: obj({
    q: str,
    events: { type: "array", maxItems: 20, items: ref("EventRow") },
    entities: {
      type: "array",
      maxItems: 20,
      items: obj({
        id: str,
        label: str,
        category: str,
        kind: { type: "string", enum: ["service", "agent", "escrow"] },
        wallets: { type: "array", items: address },
      }),
    },
    addresses: { type: "array", maxItems: 20, items: obj({ address, label: str, category: { type: ["string", "null"] }, source: str }) },
  }),
};

export const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ref("Error") } } });
export const ok = (schema: unknown, description = "OK", headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema } },
});
export const idParam = (description: string) => ({ name: "id", in: "path", required: true, description, schema: { type: "string" } });
export const pageParams = [
  { name: "cursor", in: "query", required: false, description: "`nextCursor` of the previous page", schema: { type: "string" } },
  { name: "limit", in: "query", required: false, description: "page size, 1–100 (default 50)", schema: { type: "integer", minimum: 1, maximum: 100 } },
];
