import type { ProviderPattern, ProviderSummary, TokenAmount } from "./types.ts";

export interface ProviderAggregate {
  key: string;
  pattern: ProviderPattern;
  txCount: number;
  amountSumWei: bigint;
  byToken: TokenAmount[];
}

/** What the registry says about a provider key: its entity's label, address label, fingerprint label and address. */
export interface ProviderLabels {
  entity_label: string | null;
  address_label: string | null;
  fp_label: string | null;
  fp_address: string | null;
}

/**
 * Address, fingerprint and label of a provider aggregate. Pattern A (`address`): the key is the provider address,
 * labelled by its entity, else its address_labels entry. Pattern B (`fingerprint`): the key is the memo fingerprint,
 * labelled by fingerprint_labels (whose provider_address, when known, is the address), else by the service the
 * registry's MPP server id names (registry v3 `server_ids`: the directory's service name).
 */
export function labelProvider(a: ProviderAggregate, r: ProviderLabels | undefined): ProviderSummary {
  const { key, pattern, txCount, amountSumWei, byToken } = a;
  return pattern === "address"
    ? { key, pattern, address: key, fingerprint: null, label: r?.entity_label ?? r?.address_label ?? null, txCount, amountSumWei, byToken }
    : { key, pattern, address: r?.fp_address ?? null, fingerprint: key, label: r?.fp_label ?? null, txCount, amountSumWei, byToken };
}
