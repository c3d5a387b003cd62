import { useStore } from "../store.ts";
import { useEffect, useState } from "preact/hooks";
import { apiRecoveries, gql, ROW_FIELDS, type Row } from "../api.ts";
import { Amount, ErrorNote, EventsTable, Loading, NotFound, Time } from "../components.tsx";
import { KIND_LABEL, utcTitle } from "../format.ts";
import { tokens } from "../tokens.ts";

interface EventData extends Row {
  agentCategory: string;
  counterpartyCategory: string | null;
  logIndex: number;
  sourceBlock: number;
  methodologyVersion: string;
  explorerUrl: string;
  routedToAddress: string;
  relatedEvents: Row[];
}

const KIND_TEXT: Record<string, string> = {
  payment_sent: "sent a payment",
  payment_received: "received a payment",
  fee_paid: "paid a fee",
};

export function EventPage({ id }: { id: string }) {
  const [e, setE] = useState<EventData | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const recoveries = useStore(apiRecoveries);
  const tokenList = useStore(tokens);
  /** The decimals its token's raw units have, from the registry (none listed: v0.1 token units of 6 decimals). */
  const decimalsOf = (address: string) => {
    if (!tokenList || tokenList.size === 0) return "6 decimals";
    const t = tokenList.get(address.toLowerCase());
    return t ? `${t.decimals} decimals` : "a token the allowlist does not list";
  };
  useEffect(() => {
    if (!/^[1-9][0-9]{0,18}$/.test(id)) return setE(null);
    gql<{ event: EventData | null }>(
      `query($id: ID!) { event(id: $id) { ${ROW_FIELDS} agentCategory counterpartyCategory logIndex sourceBlock methodologyVersion explorerUrl routedToAddress relatedEvents { ${ROW_FIELDS} } } }`,
      { id },
    ).then((r) => setE(r.event), setError);
  }, [id, recoveries]);
  useEffect(() => {
    if (e) document.title = `Ledger row #${e.id}: ${e.agentLabel} ${KIND_LABEL[e.kind] ?? e.kind} — Agent Ledger`;
  }, [e?.id]);

  if (e === null) return <NotFound what={`There is no ledger row #${id}.`} />;
  if (error && !e) return <ErrorNote error={error} />;
  if (!e) return <Loading what={`ledger row #${id}`} />;
  const entityHref = `/${e.agentId.endsWith("-mpp") ? "services" : "agents"}/${encodeURIComponent(e.agentId)}`;
  return (
    <div data-page="event">
      <div class="page-head">
        <div>
          <p class="crumbs">Ledger row <span class="mono">#{e.id}</span></p>
          <h1>
            <a href={entityHref}>{e.agentLabel}</a> {KIND_TEXT[e.kind] ?? e.kind}
          </h1>
          <p class="lede">
            <strong><Amount units={e.amountWei} token={e.tokenAddress} /></strong> · <Time iso={e.ts} />
          </p>
        </div>
      </div>
      <section class="card">
        <h2>Provenance</h2>
        <dl class="facts">
          <dt>Amount</dt><dd><Amount units={e.amountWei} token={e.tokenAddress} /> <span class="muted">({e.amountWei} base units, {decimalsOf(e.tokenAddress)})</span></dd>
          <dt>Token</dt><dd class="mono">{e.tokenAddress}</dd>
          <dt>Entity</dt><dd><a href={entityHref}>{e.agentLabel}</a> <span class="muted">({e.agentCategory || "uncategorised"}, {e.agentId})</span></dd>
          <dt>Counterparty</dt><dd>{e.counterpartyLabel ? <>{e.counterpartyLabel} {e.counterpartyCategory ? <span class="muted">({e.counterpartyCategory})</span> : null}<br /></> : null}<span class="mono">{e.counterpartyAddress}</span></dd>
          {e.routedToLabel || e.routedToAddress || e.routedFingerprint ? (
            <>
              <dt>Routed to</dt>
              <dd>
                {e.routedToLabel || "unlabelled provider"}{" "}
                {e.routedToAddress ? <a class="mono" href={`/providers/${e.routedToAddress}`}>{e.routedToAddress}</a> : null}
                {e.routedFingerprint ? <> fingerprint <a class="mono" href={`/providers/${e.routedFingerprint}`}>{e.routedFingerprint}</a></> : null}
              </dd>
            </>
          ) : null}
          <dt>Time</dt><dd><Time iso={e.ts} /> <span class="muted">({utcTitle(e.ts)})</span></dd>
          <dt>Transaction</dt><dd><a class="mono" href={e.explorerUrl} rel="noopener noreferrer" data-external="">{e.txHash}</a></dd>
          <dt>Log index</dt><dd>{e.logIndex}</dd>
          <dt>Block</dt><dd>{e.sourceBlock}</dd>
          <dt>Methodology</dt><dd>{e.methodologyVersion}</dd>
        </dl>
      </section>
      <section class="card">
        <h2>Other rows of this transaction</h2>
        {e.relatedEvents.length === 0 ? <p class="empty">This transaction produced no other ledger row.</p> : <EventsTable rows={e.relatedEvents} caption="Other rows of the same transaction" />}
      </section>
    </div>
  );
}
