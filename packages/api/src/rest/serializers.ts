// JSON shapes of the REST API. Field names are exact (docs/api.md, openapi.ts); amounts are decimal strings,
// times ISO 8601. Event rows are the spec's snake_case Event row; everything else is camelCase.
import type {
  AddressLabelRecord,
  Dashboard,
  EntityDetail,
  EntityListItem,
  EntitySearchHit,
  EventDetail,
  EventRecord,
  Page,
  ProviderDetail,
  ProviderSummary,
  SearchResult,
  SessionLife,
  SessionStep,
  TokenAmount,
  TopEntity,
} from "../services/types.ts";

/** One entry of a `byToken` array (docs/api.md, Per-token breakdowns). */
export function tokenAmountJson(t: TokenAmount) {
  return {
    tokenAddress: t.tokenAddress,
    symbol: t.symbol,
    decimals: t.decimals,
    currency: t.currency,
    txCount: t.txCount,
    amountSumWei: t.amountSumWei.toString(),
  };
}

export function eventRowJson(e: EventRecord) {
  return {
    id: Number(e.id),
    ts: e.ts.toISOString(),
    agent_id: e.agentId,
    agent_label: e.agentLabel,
    agent_category: e.agentCategory,
    counterparty_address: e.counterpartyAddress,
    counterparty_label: e.counterpartyLabel,
    counterparty_category: e.counterpartyCategory,
    kind: e.kind,
    amount_wei: e.amountWei.toString(),
    token_address: e.tokenAddress,
    tx_hash: e.txHash,
    source_block: Number(e.sourceBlock),
    methodology_version: e.methodologyVersion,
    routed_to_address: e.routedToAddress,
    routed_to_label: e.routedToLabel,
    routed_fingerprint: e.routedFingerprint,
    explorer_url: e.explorerUrl,
    // methodology v0.3 (null on older rows)
    attribution: e.attribution,
    client_fingerprint: e.clientFingerprint,
    client_label: e.clientLabel,
    channel_id: e.channelId,
  };
}

const stepJson = (s: SessionStep) => ({ tx_hash: s.txHash, log_index: s.logIndex, ts: s.ts.toISOString() });

/** A session row's channel life (event detail `session`), snake_case like the row; amounts decimal strings. */
export function sessionJson(s: SessionLife) {
  return {
    channel_id: s.channelId,
    escrow_address: s.escrowAddress,
    escrow_label: s.escrowLabel,
    payer: s.payer,
    payee: s.payee,
    token_address: s.tokenAddress,
    deposit_wei: s.depositWei?.toString() ?? null,
    settled_wei: s.settledWei.toString(),
    refunded_wei: s.refundedWei?.toString() ?? null,
    opened: s.opened && { ...stepJson(s.opened), token_address: s.opened.tokenAddress, deposit_wei: s.opened.depositWei.toString() },
    top_ups: s.topUps.map((t) => ({ ...stepJson(t), additional_deposit_wei: t.additionalDepositWei.toString(), new_deposit_wei: t.newDepositWei.toString() })),
    settlements: s.settlements.map((t) => ({
      ...stepJson(t),
      cumulative_amount_wei: t.cumulativeAmountWei.toString(),
      delta_paid_wei: t.deltaPaidWei.toString(),
      new_settled_wei: t.newSettledWei.toString(),
    })),
    closed: s.closed && {
      ...stepJson(s.closed),
      settled_to_payee_wei: s.closed.settledToPayeeWei.toString(),
      refunded_to_payer_wei: s.closed.refundedToPayerWei.toString(),
    },
  };
}

export function eventDetailJson(d: EventDetail) {
  return {
    ...eventRowJson(d.event),
    log_index: d.event.logIndex,
    related_events: d.relatedEvents.map(eventRowJson),
    session: d.session && sessionJson(d.session),
  };
}

export function eventPageJson(p: Page<EventRecord>) {
  return { items: p.items.map(eventRowJson), nextCursor: p.nextCursor };
}

function topEntityJson(t: TopEntity) {
  return {
    id: t.id,
    label: t.label,
    category: t.category,
    txCount: t.txCount,
    amountSumWei: t.amountSumWei.toString(),
    byToken: t.byToken.map(tokenAmountJson),
  };
}

export function providerSummaryJson(p: ProviderSummary) {
  return {
    key: p.key,
    pattern: p.pattern,
    address: p.address,
    fingerprint: p.fingerprint,
    label: p.label,
    txCount: p.txCount,
    amountSumWei: p.amountSumWei.toString(),
    byToken: p.byToken.map(tokenAmountJson),
  };
}

// The summary's object with the two dates set on it, not spread from it: the gateway detail maps 100 of these per
// request, and a spread costs 1.4–3× the literal, while setting two properties costs the same as the literal (A B A B
// with JSON.stringify of 100 rows, 20,000 times).
export function providerDetailJson(p: ProviderDetail) {
  const json = providerSummaryJson(p) as ReturnType<typeof providerSummaryJson> & { firstSeenAt: string; lastSeenAt: string };
  json.firstSeenAt = p.firstSeenAt.toISOString();
  json.lastSeenAt = p.lastSeenAt.toISOString();
  return json;
}

export function dashboardJson(d: Dashboard) {
  return {
    windowHours: d.windowHours,
    txCount: d.txCount,
    agentsActive: d.agentsActive,
    amountSumWei: d.amountSumWei.toString(),
    byToken: d.byToken.map(tokenAmountJson),
    providersDetected: d.providersDetected,
    topServices: d.topServices.map(topEntityJson),
    topAgents: d.topAgents.map(topEntityJson),
    topProviders: d.topProviders.map(providerSummaryJson),
    recentEvents: d.recentEvents.map(eventRowJson),
  };
}

export function entityListItemJson(e: EntityListItem) {
  return {
    id: e.id,
    label: e.label,
    category: e.category,
    kind: e.kind,
    active: e.active,
    wallets: e.wallets,
    txCount24h: e.txCount24h,
    amountSumWei24h: e.amountSumWei24h.toString(),
    txCount7d: e.txCount7d,
    amountSumWei7d: e.amountSumWei7d.toString(),
    byToken24h: e.byToken24h.map(tokenAmountJson),
    byToken7d: e.byToken7d.map(tokenAmountJson),
    lastEventAt: e.lastEventAt?.toISOString() ?? null,
  };
}

export function entityDetailJson(d: EntityDetail) {
  return {
    id: d.id,
    label: d.label,
    category: d.category,
    kind: d.kind,
    active: d.active,
    wallets: d.wallets,
    totals: {
      txCount: d.totals.txCount,
      amountSumWei: d.totals.amountSumWei.toString(),
      feeCount: d.totals.feeCount,
      feeSumWei: d.totals.feeSumWei.toString(),
      byToken: d.tokens.byToken.map(tokenAmountJson),
      feesByToken: d.tokens.feesByToken.map(tokenAmountJson),
    },
    trend: d.trend.map((t, i) => ({
      day: t.day,
      txCount: t.txCount,
      amountSumWei: t.amountSumWei.toString(),
      byToken: d.tokens.trend[i]!.map(tokenAmountJson),
    })),
    recentEvents: d.recentEvents.items.map(eventRowJson),
    nextCursor: d.recentEvents.nextCursor,
    ...(d.providers ? { providers: d.providers.map(providerDetailJson) } : {}),
  };
}

function entityHitJson(e: EntitySearchHit) {
  return { id: e.id, label: e.label, category: e.category, kind: e.kind, wallets: e.wallets };
}

function addressJson(a: AddressLabelRecord) {
  return { address: a.address, label: a.label, category: a.category, source: a.source };
}

export function searchJson(s: SearchResult) {
  return {
    q: s.q,
    events: s.events.items.map(eventRowJson),
    entities: s.entities.items.map(entityHitJson),
    addresses: s.addresses.items.map(addressJson),
  };
}
