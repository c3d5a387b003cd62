// The GraphQL documents of the ledger tools. Public reads: sent without credentials, so the API may coalesce them.

export const EVENT_FIELDS = `id ts agentId agentLabel agentCategory counterpartyAddress counterpartyLabel counterpartyCategory kind amountWei
  tokenAddress txHash logIndex sourceBlock methodologyVersion routedToAddress routedToLabel routedFingerprint explorerUrl
  attribution clientFingerprint clientLabel channelId`;

const STEP = "txHash logIndex ts";
const SESSION_FIELDS = `channelId escrowAddress escrowLabel payer payee tokenAddress depositWei settledWei refundedWei
    opened { ${STEP} tokenAddress depositWei } topUps { ${STEP} additionalDepositWei newDepositWei }
    settlements { ${STEP} cumulativeAmountWei deltaPaidWei newSettledWei } closed { ${STEP} settledToPayeeWei refundedToPayerWei }`;

const PROVIDER_FIELDS = "key pattern address fingerprint label txCount amountSumWei firstSeenAt lastSeenAt";

export const DASHBOARD = `query McpDashboard($window: String!) {
  dashboard(window: $window) {
    window windowHours txCount amountSumWei agentsActive providersDetected
    topServices { id label category txCount amountSumWei }
    topAgents { id label category txCount amountSumWei }
    topProviders { ${PROVIDER_FIELDS} }
    recentEvents { ${EVENT_FIELDS} }
  }
}`;

export const SEARCH = `query McpSearch($q: String!, $first: Int) {
  search(q: $q) {
    q
    events(first: $first) { items { ${EVENT_FIELDS} } nextCursor }
    entities(first: $first) { items { id label category kind wallets } nextCursor }
    addresses(first: $first) { items { address label category source } nextCursor }
  }
}`;

const ENTITY_DETAIL = `id label category kind active wallets txCount24h amountSumWei24h txCount7d amountSumWei7d lastEventAt
    totals { txCount amountSumWei feeCount feeSumWei }
    trend { day txCount amountSumWei }
    recentEvents(first: $events) { items { ${EVENT_FIELDS} } nextCursor }
    providers(first: $providers) { items { ${PROVIDER_FIELDS} } nextCursor }`;

export const SERVICE = `query McpService($id: ID!, $events: Int, $providers: Int) { entity: service(id: $id) { ${ENTITY_DETAIL} } }`;
export const AGENT = `query McpAgent($id: ID!, $events: Int, $providers: Int) { entity: agent(id: $id) { ${ENTITY_DETAIL} } }`;

export const EVENT = `query McpEvent($id: ID!) { event(id: $id) { ${EVENT_FIELDS} relatedEvents { ${EVENT_FIELDS} } session { ${SESSION_FIELDS} } } }`;

export const ENTITY_EVENTS = `query McpEntityEvents($id: ID!, $first: Int, $after: String) {
  service(id: $id) { recentEvents(first: $first, after: $after) { items { ${EVENT_FIELDS} } nextCursor } }
  agent(id: $id) { recentEvents(first: $first, after: $after) { items { ${EVENT_FIELDS} } nextCursor } }
}`;

export const LATEST_EVENTS = `query McpLatestEvents { dashboard(window: "24h") { recentEvents { ${EVENT_FIELDS} } } }`;

export const PROVIDER = `query McpProvider($key: String!) { provider(key: $key) { ${PROVIDER_FIELDS} } }`;

export const REGISTRY = `query McpRegistry {
  services { id label category kind active wallets }
  agents { id label category kind active wallets }
}`;
