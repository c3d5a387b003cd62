import { mppFingerprint, REGISTRY_V3 } from "@agent-ledger/core";

/**
 * What `npm run registry -- discover <url>` read from a service's 402 challenge (the JSON it prints; the records of
 * registry/sources/*-facts.json `discovered`).
 */
export interface Discovery {
  /** The URL that answered 402. */
  url: string;
  /** When (ISO 8601). */
  at: string;
  /** The challenge's payment method and intent (`tempo`, `charge` | `session` | …). */
  method: string;
  intent: string;
  /** The challenge realm, and the serverId a client writes for it: keccak256(realm)[0..9]. */
  realm: string;
  server_id: string;
  /** request.recipient, lowercase; null when the challenge names none. */
  recipient: string | null;
  /** request.currency (the token), lowercase. */
  currency: string | null;
  /** request.methodDetails.chainId. */
  chain_id: number | null;
  /** A session's request.methodDetails.escrowContract, lowercase. */
  escrow_contract: string | null;
  /** The entity to record it on; absent: the entity whose `service_url` is the longest prefix of `url`. */
  entity?: string;
}

/** A discovery that cannot be recorded in this registry. */
export class DiscoveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DiscoveryError";
  }
}

type Json = Record<string, unknown>;

const list = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const walletAddress = (w: unknown): string =>
  (typeof w === "string" ? w : typeof (w as Json | null)?.address === "string" ? String((w as Json).address) : "").toLowerCase();
const prefixOf = (serviceUrl: string, url: string): boolean => {
  const base = serviceUrl.replace(/\/+$/, "");
  return url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`);
};

/**
 * Records a discovery in a registry JSON document (returns a new document; the input is not changed): the recipient
 * becomes a wallet and the realm's fingerprint a server id of the matching entity, each with
 * `source: "discovered <url> <time>"` (a registry_version below 3 is raised to 3). What it leaves out, and why, is in
 * `notes`: a recipient that is another entity's wallet (e.g. the gateway every *.mpp.tempo.xyz service is paid
 * through), a realm that is a shared fingerprint group, a currency or escrow the registry does not list.
 * Throws DiscoveryError for a chain other than the registry's, no matching entity, or a server id of another entity.
 */
export function applyDiscovery(document: Json, d: Discovery): { document: Json; notes: string[] } {
  const notes: string[] = [];
  const doc = structuredClone(document);
  if (typeof doc.chain_id === "number" && d.chain_id !== null && d.chain_id !== doc.chain_id) {
    throw new DiscoveryError(`${d.url} asks for payment on chain ${d.chain_id}; this registry is for chain ${doc.chain_id}`);
  }
  const fingerprint = mppFingerprint(d.realm);
  if (d.server_id !== fingerprint) throw new DiscoveryError(`server_id ${d.server_id} is not keccak256("${d.realm}")[0..9] = ${fingerprint}`);
  const entities = list(doc.entities);
  let entity: Json | undefined;
  if (d.entity !== undefined) {
    entity = entities.find((e) => e.id === d.entity);
    if (!entity) throw new DiscoveryError(`no entity "${d.entity}" in this registry`);
  } else {
    entity = entities
      .filter((e) => typeof e.service_url === "string" && prefixOf(e.service_url, d.url))
      .sort((a, b) => String(b.service_url).length - String(a.service_url).length)[0];
    if (!entity) throw new DiscoveryError(`no entity's service_url is a prefix of ${d.url}: name one with --entity <id>`);
  }
  const id = String(entity.id);
  const source = `discovered ${d.url} ${d.at}`;

  const owner = entities.find((e) => e !== entity && list(e.server_ids).some((s) => s.fingerprint === fingerprint));
  if (owner) throw new DiscoveryError(`server id ${fingerprint} (realm ${d.realm}) already names "${String(owner.id)}", not "${id}"`);
  const group = list(doc.fingerprint_labels).find((l) => typeof l.fingerprint === "string" && l.fingerprint.toLowerCase() === fingerprint);
  if (group) {
    notes.push(`realm ${d.realm} (${fingerprint}) is the shared group "${String(group.label)}": not a server id of ${id}`);
  } else {
    const serverIds = list(entity.server_ids);
    const from = d.realm === new URL(d.url).host ? "host" : "realm";
    const known = serverIds.findIndex((s) => s.fingerprint === fingerprint);
    if (known >= 0) serverIds[known] = { ...serverIds[known], source };
    else serverIds.push({ fingerprint, from, value: d.realm, source });
    entity.server_ids = serverIds;
  }

  if (d.recipient === null) {
    notes.push("the challenge names no recipient");
  } else {
    const recipient = d.recipient.toLowerCase();
    const other = entities.find((e) => e !== entity && list(e.wallets).some((w) => walletAddress(w) === recipient));
    const escrow = list(doc.escrows).find((x) => String(x.address).toLowerCase() === recipient);
    if (other) notes.push(`recipient ${recipient} is a wallet of "${String(other.id)}" (${String(other.category)}): not added to ${id}`);
    else if (escrow) notes.push(`recipient ${recipient} is the escrow "${String(escrow.id)}": not added to ${id}`);
    else {
      const wallets = Array.isArray(entity.wallets) ? [...(entity.wallets as unknown[])] : [];
      const known = wallets.findIndex((w) => walletAddress(w) === recipient);
      if (known >= 0) wallets[known] = { address: recipient, source };
      else wallets.push({ address: recipient, source });
      entity.wallets = wallets;
    }
  }
  if (d.currency !== null && Array.isArray(doc.tokens) && !list(doc.tokens).some((t) => String(t.address).toLowerCase() === d.currency)) {
    notes.push(`currency ${d.currency} is not in this registry's tokens: payments in it are not counted`);
  }
  if (d.escrow_contract !== null && !list(doc.escrows).some((x) => String(x.address).toLowerCase() === d.escrow_contract)) {
    notes.push(`escrow ${d.escrow_contract} is not in this registry's escrows: its sessions are not read`);
  }
  if (typeof doc.registry_version !== "number" || doc.registry_version < REGISTRY_V3) {
    notes.push(`registry_version ${String(doc.registry_version)} raised to ${REGISTRY_V3} (discovered wallets and server ids are registry v3 fields)`);
    doc.registry_version = REGISTRY_V3;
  }
  return { document: doc, notes };
}
