/** agent_events columns as the claim query selects them (int8/numeric as text, ts as Date). */
export interface EventRowDb {
  id: string;
  ts: Date;
  agent_id: string;
  agent_label: string;
  agent_category: string;
  counterparty_address: string;
  counterparty_label: string;
  counterparty_category: string | null;
  kind: string;
  amount_wei: string;
  token_address: string;
  tx_hash: string;
  source_block: string;
  methodology_version: string;
  routed_to_address: string;
  routed_to_label: string;
  routed_fingerprint: string | null;
  explorer_url: string;
}

/** SELECT list producing EventRowDb from `agent_events e`. */
export const EVENT_ROW_COLUMNS = `e.id::text AS id, e.ts, e.agent_id, e.agent_label, e.agent_category, e.counterparty_address, e.counterparty_label,
  e.counterparty_category, e.kind, e.amount_wei::text AS amount_wei, e.token_address, e.tx_hash, e.source_block::text AS source_block,
  e.methodology_version, e.routed_to_address, e.routed_to_label, e.routed_fingerprint, e.explorer_url`;

/**
 * The webhook `data` object: exactly the spec's Event row (§2), snake_case, in the spec's order, no memo
 * and nothing else (log_index is provenance of the read API's detail view, not part of the row).
 */
export function eventRowJson(e: EventRowDb) {
  return {
    id: Number(e.id),
    ts: e.ts.toISOString(),
    agent_id: e.agent_id,
    agent_label: e.agent_label,
    agent_category: e.agent_category,
    counterparty_address: e.counterparty_address,
    counterparty_label: e.counterparty_label,
    counterparty_category: e.counterparty_category,
    kind: e.kind,
    amount_wei: e.amount_wei,
    token_address: e.token_address,
    tx_hash: e.tx_hash,
    source_block: Number(e.source_block),
    methodology_version: e.methodology_version,
    routed_to_address: e.routed_to_address,
    routed_to_label: e.routed_to_label,
    routed_fingerprint: e.routed_fingerprint,
    explorer_url: e.explorer_url,
  };
}
