import { useStore } from "../../shared/store.ts";
import { useEffect, useState } from "preact/hooks";
import { apiRecoveries, gql, ROW_FIELDS, type Row } from "../api.ts";
import { ErrorNote, EventsTable, Loading, NotFound } from "../components.tsx";
import { Amount, Time } from "../../shared/components.tsx";
import { ATTRIBUTION_TEXT, KIND_LABEL, shortHex, utcTitle } from "../../shared/format.ts";
import { tokens } from "../../shared/tokens.ts";

interface Step {
  txHash: string;
  logIndex: number;
  ts: string;
}

/** A session row's payment channel (GraphQL Event.session). */
interface Session {
  channelId: string;
  escrowAddress: string;
  escrowLabel: string;
  payer: string;
  payee: string;
  tokenAddress: string | null;
  depositWei: string | null;
  settledWei: string;
  refundedWei: string | null;
  opened: (Step & { tokenAddress: string; depositWei: string }) | null;
  topUps: (Step & { additionalDepositWei: string; newDepositWei: string })[];
  settlements: (Step & { cumulativeAmountWei: string; deltaPaidWei: string; newSettledWei: string })[];
  closed: (Step & { settledToPayeeWei: string; refundedToPayerWei: string }) | null;
}

interface EventData extends Row {
  agentCategory: string;
  counterpartyCategory: string | null;
  logIndex: number;
  sourceBlock: number;
  methodologyVersion: string;
  explorerUrl: string;
  routedToAddress: string;
  attribution: string | null;
  clientFingerprint: string | null;
  clientLabel: string | null;
  channelId: string | null;
  session: Session | null;
  relatedEvents: Row[];
}

const STEP = "txHash logIndex ts";
const EVENT_QUERY = `query($id: ID!) { event(id: $id) {
  ${ROW_FIELDS} agentCategory counterpartyCategory logIndex sourceBlock methodologyVersion explorerUrl routedToAddress
  attribution clientFingerprint clientLabel channelId
  session { channelId escrowAddress escrowLabel payer payee tokenAddress depositWei settledWei refundedWei
    opened { ${STEP} tokenAddress depositWei } topUps { ${STEP} additionalDepositWei newDepositWei }
    settlements { ${STEP} cumulativeAmountWei deltaPaidWei newSettledWei } closed { ${STEP} settledToPayeeWei refundedToPayerWei } }
  relatedEvents { ${ROW_FIELDS} } } }`;

const KIND_TEXT: Record<string, string> = {
  payment_sent: "sent a payment",
  payment_received: "received a payment",
  fee_paid: "paid a fee",
  settlement_sent: "paid out a settlement",
  settlement_received: "received a settlement",
  funding_sent: "moved funds",
  funding_received: "received funds",
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
    gql<{ event: EventData | null }>(EVENT_QUERY, { id }).then((r) => setE(r.event), setError);
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
          <p class="crumbs">
            Ledger row <span class="mono">#{e.id}</span>
          </p>
          <h1>
            <a href={entityHref}>{e.agentLabel}</a> {KIND_TEXT[e.kind] ?? e.kind}
          </h1>
          <p class="lede">
            <strong>
              <Amount units={e.amountWei} token={e.tokenAddress} />
            </strong>{" "}
            · <Time iso={e.ts} />
          </p>
        </div>
      </div>
      <section class="card">
        <h2>Provenance</h2>
        <dl class="facts">
          <dt>Amount</dt>
          <dd>
            <Amount units={e.amountWei} token={e.tokenAddress} />{" "}
            <span class="muted">
              ({e.amountWei} base units, {decimalsOf(e.tokenAddress)})
            </span>
          </dd>
          <dt>Token</dt>
          <dd class="mono">{e.tokenAddress}</dd>
          <dt>Entity</dt>
          <dd>
            <a href={entityHref}>{e.agentLabel}</a>{" "}
            <span class="muted">
              ({e.agentCategory || "uncategorised"}, {e.agentId})
            </span>
          </dd>
          <dt>Counterparty</dt>
          <dd>
            {e.counterpartyLabel ? (
              <>
                {e.counterpartyLabel} {e.counterpartyCategory ? <span class="muted">({e.counterpartyCategory})</span> : null}
                <br />
              </>
            ) : null}
            <span class="mono">{e.counterpartyAddress}</span>
          </dd>
          {e.attribution ? (
            <>
              <dt>Attribution</dt>
              <dd data-fact="attribution" data-attribution={e.attribution}>
                {ATTRIBUTION_TEXT[e.attribution] ?? e.attribution}
              </dd>
            </>
          ) : null}
          {e.routedToLabel || e.routedToAddress || e.routedFingerprint ? (
            <>
              <dt>{e.attribution ? "Service" : "Routed to"}</dt>
              <dd data-fact="routed">
                {e.routedToLabel || "unlabelled provider"}{" "}
                {e.routedToAddress ? (
                  <a class="mono" href={`/providers/${e.routedToAddress}`}>
                    {e.routedToAddress}
                  </a>
                ) : null}
                {e.routedFingerprint ? (
                  <>
                    {" "}
                    fingerprint{" "}
                    <a class="mono" href={`/providers/${e.routedFingerprint}`}>
                      {e.routedFingerprint}
                    </a>
                  </>
                ) : null}
              </dd>
            </>
          ) : null}
          {e.clientFingerprint ? (
            <>
              <dt>Client</dt>
              <dd data-fact="client">
                {e.clientLabel ? <>{e.clientLabel} </> : <span class="muted">unlabelled client </span>}
                <span class="mono">{e.clientFingerprint}</span>
              </dd>
            </>
          ) : null}
          {e.channelId ? (
            <>
              <dt>Channel</dt>
              <dd data-fact="channel" class="mono">
                {e.channelId}
              </dd>
            </>
          ) : null}
          <dt>Time</dt>
          <dd>
            <Time iso={e.ts} /> <span class="muted">({utcTitle(e.ts)})</span>
          </dd>
          <dt>Transaction</dt>
          <dd>
            <a class="mono" href={e.explorerUrl} rel="noopener noreferrer" data-external="">
              {e.txHash}
            </a>
          </dd>
          <dt>Log index</dt>
          <dd>{e.logIndex}</dd>
          <dt>Block</dt>
          <dd>{e.sourceBlock}</dd>
          <dt>Methodology</dt>
          <dd>{e.methodologyVersion}</dd>
        </dl>
      </section>
      {e.session ? <SessionCard s={e.session} fallbackToken={e.tokenAddress} /> : null}
      <section class="card">
        <h2>Other rows of this transaction</h2>
        {e.relatedEvents.length === 0 ? (
          <p class="empty">This transaction produced no other ledger row.</p>
        ) : (
          <EventsTable rows={e.relatedEvents} caption="Other rows of the same transaction" />
        )}
      </section>
    </div>
  );
}

/** A session row's payment channel: what the payer deposited, what the payee was paid, what came back, step by step. */
function SessionCard({ s, fallbackToken }: { s: Session; fallbackToken: string }) {
  const token = s.tokenAddress ?? fallbackToken;
  const tx = (step: Step) => (
    <a class="mono" href={`/tx/${step.txHash}`}>
      {shortHex(step.txHash)}
    </a>
  );
  const steps: { key: string; what: string; amount: string; note: string | null; step: Step }[] = [
    ...(s.opened ? [{ key: "opened", what: "Opened", amount: s.opened.depositWei, note: "deposit", step: s.opened }] : []),
    ...s.topUps.map((t) => ({
      key: `top-up-${t.txHash}-${t.logIndex}`,
      what: "Topped up",
      amount: t.additionalDepositWei,
      note: "added to the deposit",
      step: t,
    })),
    ...s.settlements.map((t) => ({ key: `settled-${t.txHash}-${t.logIndex}`, what: "Settled", amount: t.deltaPaidWei, note: "paid to the payee", step: t })),
    ...(s.closed ? [{ key: "closed", what: "Closed", amount: s.closed.refundedToPayerWei, note: "refunded to the payer", step: s.closed }] : []),
  ];
  return (
    <section class="card" data-session={s.channelId}>
      <h2>Session</h2>
      <p class="muted small">
        A payment channel: the payer deposits into the escrow, the payee is paid against signed vouchers, and the rest goes back to the payer at close.
      </p>
      <dl class="facts">
        <dt>Channel</dt>
        <dd class="mono">{s.channelId}</dd>
        <dt>Escrow</dt>
        <dd>
          {s.escrowLabel}
          <br />
          <span class="mono">{s.escrowAddress}</span>
        </dd>
        <dt>Payer</dt>
        <dd class="mono">{s.payer}</dd>
        <dt>Payee</dt>
        <dd class="mono">{s.payee}</dd>
        <dt>Deposit</dt>
        <dd data-fact="session-deposit">{s.depositWei === null ? <span class="muted">not stored</span> : <Amount units={s.depositWei} token={token} />}</dd>
        <dt>Settled</dt>
        <dd data-fact="session-settled">
          <Amount units={s.settledWei} token={token} />
        </dd>
        <dt>Refunded</dt>
        <dd data-fact="session-refunded">
          {s.refundedWei === null ? <span class="muted">not closed yet</span> : <Amount units={s.refundedWei} token={token} />}
        </dd>
      </dl>
      <div class="table-wrap">
        <table class="session-steps">
          <caption class="sr-only">The channel's escrow events, in chain order</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col" class="r">
                Amount
              </th>
              <th scope="col">Time</th>
              <th scope="col">Transaction</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((x) => (
              <tr key={x.key} data-step={x.what.toLowerCase().replace(" ", "-")}>
                <td class="c-step">{x.what}</td>
                <td class="r num nowrap c-amt">
                  <Amount units={x.amount} token={token} />
                  {x.note ? <div class="muted small">{x.note}</div> : null}
                </td>
                <td class="nowrap c-time">
                  <Time iso={x.step.ts} />
                </td>
                <td class="nowrap c-tx">{tx(x.step)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
