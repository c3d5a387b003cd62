// The GraphQL documents of the ledger tools. Public reads: sent without credentials, so the API may coalesce them.

export const EVENT_FIELDS = `id ts agentId agentLabel agentCategory counterpartyAddress counterpartyLabel counterpartyCategory kind amountWei
  tokenAddress txHash logIndex sourceBlock methodologyVersion routedToAddress routedToLabel routedFingerprint explorerUrl
  attribution clientFingerprint clientLabel channelId`;

const STEP = "txHash logIndex ts";
const SESSION_FIELDS = `channelId escrowAddress escrowLabel payer payee tokenAddress depositWei settledWei refundedWei
    opened { ${STEP} tokenAddress depositWei } topUps { ${STEP} additionalDepositWei newDepositWei }
    settlements { ${STEP} cumulativeAmountWei deltaPaidWei newSettledWei } closed { ${STEP} settledToPayeeWei refundedToPayerWei }`;

/** Every summed amount's split by token, with the registry's symbol (the API's `TokenAmount`). */
const BY_TOKEN = "tokenAddress symbol decimals currency txCount amountSumWei";

const PROVIDER_FIELDS = `key pattern address fingerprint label txCount amountSumWei byToken { ${BY_TOKEN} } firstSeenAt lastSeenAt`;

export const DASHBOARD = `query McpDashboard($window: String!) {
  dashboard(window: $window) {
    window windowHours txCount amountSumWei byToken { ${BY_TOKEN} } agentsActive providersDetected
    topServices { id label category txCount amountSumWei byToken { ${BY_TOKEN} } }
    topAgents { id label category txCount amountSumWei byToken { ${BY_TOKEN} } }
    topProviders { ${PROVIDER_FIELDS} }
    recentEvents { ${EVENT_FIELDS} }
  }
}`;

// Each list pages on its own: a list is asked for when its flag is set, from its cursor (null: the first page).
export const SEARCH = `query McpSearch($q: String!, $first: Int, $events: Boolean!, $entities: Boolean!, $addresses: Boolean!,
  $eventsAfter: String, $entitiesAfter: String, $addressesAfter: String) {
  search(q: $q) {
    q
    events(first: $first, after: $eventsAfter) @include(if: $events) { items { ${EVENT_FIELDS} } nextCursor }
    entities(first: $first, after: $entitiesAfter) @include(if: $entities) { items { id label category kind wallets } nextCursor }
    addresses(first: $first, after: $addressesAfter) @include(if: $addresses) { items { address label category source } nextCursor }
  }
}`;

const ENTITY_DETAIL = `id label category kind active wallets txCount24h amountSumWei24h byToken24h { ${BY_TOKEN} }
    txCount7d amountSumWei7d byToken7d { ${BY_TOKEN} } lastEventAt
    totals { txCount amountSumWei feeCount feeSumWei byToken { ${BY_TOKEN} } feesByToken { ${BY_TOKEN} } }
    trend { day txCount amountSumWei byToken { ${BY_TOKEN} } }
    recentEvents(first: $events) { items { ${EVENT_FIELDS} } nextCursor }
    providers(first: $providers) { items { ${PROVIDER_FIELDS} } nextCursor }`;

export const SERVICE = `query McpService($id: ID!, $events: Int, $providers: Int) { entity: service(id: $id) { ${ENTITY_DETAIL} } }`;
export const AGENT = `query McpAgent($id: ID!, $events: Int, $providers: Int) { entity: agent(id: $id) { ${ENTITY_DETAIL} } }`;

export const EVENT = `query McpEvent($id: ID!) { event(id: $id) { ${EVENT_FIELDS} relatedEvents { ${EVENT_FIELDS} } session { ${SESSION_FIELDS} } } }`;

export const ENTITY_EVENTS = `query McpEntityEvents($id: ID!, $first: Int, $after: String) {
  service(id: $id) { recentEvents(first: $first, after: $after) { items { ${EVENT_FIELDS} } nextCursor } }
  agent(id: $id) { recentEvents(first: $first, after: $after) { items { ${EVENT_FIELDS} } nextCursor } }
}`;

/** An entity (service or agent) by id, for the entity resource template. */
export const ENTITY = `query McpEntity($id: ID!, $events: Int, $providers: Int) {
  service(id: $id) { ${ENTITY_DETAIL} }
  agent(id: $id) { ${ENTITY_DETAIL} }
}`;

export const LATEST_EVENTS = `query McpLatestEvents { dashboard(window: "24h") { recentEvents { ${EVENT_FIELDS} } } }`;

export const PROVIDER = `query McpProvider($key: String!) { provider(key: $key) { ${PROVIDER_FIELDS} } }`;

export const REGISTRY = `query McpRegistry {
  services { id label category kind active wallets }
  agents { id label category kind active wallets }
}`;
