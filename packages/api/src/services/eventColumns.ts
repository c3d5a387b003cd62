import type { EventRecord } from "./types.ts";

/**
 * SELECT list of an agent_events row (alias `a`), with the int8/numeric columns as text (never a JS number), and the
 * client's label: a left join to `client_labels` (its key), written as a scalar subquery so every FROM keeps its shape.
 */
export const EVENT_COLUMNS = `a.id::text AS id, a.ts, a.agent_id, a.agent_label, a.agent_category, a.counterparty_address,
  a.counterparty_label, a.counterparty_category, a.kind, a.amount_wei::text AS amount_wei, a.token_address, a.tx_hash,
  a.log_index, a.source_block::text AS source_block, a.methodology_version, a.routed_to_address, a.routed_to_label,
  a.routed_fingerprint, a.explorer_url, a.attribution, a.client_fingerprint, a.channel_id,
  (SELECT cl.label FROM client_labels cl WHERE cl.fingerprint = a.client_fingerprint) AS client_label`;

/** Maps a row selected with EVENT_COLUMNS. */
export function eventFromRow(r: Record<string, unknown>): EventRecord {
  return {
    id: BigInt(r.id as string),
    ts: r.ts as Date,
    agentId: r.agent_id as string,
    agentLabel: r.agent_label as string,
    agentCategory: r.agent_category as string,
    counterpartyAddress: r.counterparty_address as string,
    counterpartyLabel: r.counterparty_label as string,
    counterpartyCategory: (r.counterparty_category as string | null) ?? null,
    kind: r.kind as string,
    amountWei: BigInt(r.amount_wei as string),
    tokenAddress: r.token_address as string,
    txHash: r.tx_hash as string,
    logIndex: r.log_index as number,
    sourceBlock: BigInt(r.source_block as string),
    methodologyVersion: r.methodology_version as string,
    routedToAddress: r.routed_to_address as string,
    routedToLabel: r.routed_to_label as string,
    routedFingerprint: (r.routed_fingerprint as string | null) ?? null,
    explorerUrl: r.explorer_url as string,
    attribution: (r.attribution as EventRecord["attribution"]) ?? null,
    clientFingerprint: (r.client_fingerprint as string | null) ?? null,
    clientLabel: (r.client_label as string | null) ?? null,
    channelId: (r.channel_id as string | null) ?? null,
  };
}
