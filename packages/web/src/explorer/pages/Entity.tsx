import { useStore } from "../../shared/store.ts";
import { commonUnit, sumText, tokens } from "../../shared/tokens.ts";
import { useEffect, useRef, useState } from "preact/hooks";
import { apiRecoveries, gql, ROW_FIELDS, type Row } from "../api.ts";
import { ChartPair } from "../Chart.tsx";
import {
  Empty,
  ErrorNote,
  EventsTable,
  Figure,
  LiveBadge,
  Loading,
  NotFound,
  TokenSum,
  useSoleTokenUnit,
  VolumeFigure,
  type TokenPart,
} from "../components.tsx";
import { Amount, Time } from "../../shared/components.tsx";
import { barWidth, count, share, shortHex } from "../../shared/format.ts";
import { useLive } from "../useLive.ts";

interface ProviderRow {
  key: string;
  pattern: string;
  label: string | null;
  address: string | null;
  fingerprint: string | null;
  txCount: number;
  amountSumWei: string;
  byToken: TokenPart[];
}
interface EntityData {
  id: string;
  kind: string;
  label: string;
  category: string;
  active: boolean;
  wallets: string[];
  lastEventAt: string | null;
  txCount24h: number;
  amountSumWei24h: string;
  txCount7d: number;
  amountSumWei7d: string;
  totals: { txCount: number; amountSumWei: string; feeCount: number; feeSumWei: string };
  trend: { day: string; txCount: number; amountSumWei: string }[];
  recentEvents: { items: Row[] };
  providers: { items: ProviderRow[] } | null;
  /** Per token (methodology v0.2; empty lists on v0.1): its own request (the main one is at the API's cost limit). */
  byToken?: { totals: { byToken: TokenPart[] }; byToken24h: TokenPart[]; byToken7d: TokenPart[]; trend: { day: string; byToken: TokenPart[] }[] };
}

const query = (kind: "service" | "agent") => `query($id: ID!) { entity: ${kind}(id: $id) {
  id kind label category active wallets lastEventAt txCount24h amountSumWei24h txCount7d amountSumWei7d
  totals { txCount amountSumWei feeCount feeSumWei }
  trend { day txCount amountSumWei }
  recentEvents(first: 50) { items { ${ROW_FIELDS} } }
} }`;
// Its own request: with the 50 rows it would pass the API's query cost limit. Null for all but the gateway.
// The volumes per token (all time, 24 h, 7 d, and each day of the trend for the volume chart).
const BY_TOKEN_QUERY = (kind: "service" | "agent") =>
  `query($id: ID!) { entity: ${kind}(id: $id) { totals { byToken { tokenAddress amountSumWei } } byToken24h { tokenAddress amountSumWei } byToken7d { tokenAddress amountSumWei } trend { day byToken { tokenAddress amountSumWei } } } }`;
const PROVIDERS_QUERY = `query($id: ID!) { service(id: $id) { providers(first: 100) { items { key pattern label address fingerprint txCount amountSumWei byToken { tokenAddress amountSumWei } } } } }`;

export function EntityPage({ kind, id }: { kind: "service" | "agent"; id: string }) {
  const [e, setE] = useState<EntityData | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const recoveries = useStore(apiRecoveries);
  const tokenList = useStore(tokens);
  /** A sum over tokens (no per-token split in this read): only when the tokens share their decimals. */
  const sum = (units: string) => sumText(units, tokenList) ?? "—";
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const load = () =>
    Promise.all([
      gql<{ entity: EntityData | null }>(query(kind), { id }),
      kind === "service" ? gql<{ service: { providers: EntityData["providers"] } | null }>(PROVIDERS_QUERY, { id }) : null,
      gql<{ entity: EntityData["byToken"] | null }>(BY_TOKEN_QUERY(kind), { id }),
    ]).then(([r, p, t]) => {
      setE(r.entity && { ...r.entity, providers: p?.service?.providers ?? null, byToken: t.entity ?? undefined });
      setError(null);
    }, setError);
  useEffect(() => {
    void load();
    return () => clearTimeout(timer.current);
  }, [kind, id, recoveries]);
  useEffect(() => {
    if (e) document.title = `${e.label} (${kind}) — Agent Ledger`;
  }, [e?.label]);

  const first = useRef<{ id: string; after: string | null | undefined }>({ id, after: undefined });
  if (first.current.id !== id) first.current = { id, after: undefined };
  if (first.current.after === undefined && e) first.current.after = e.recentEvents.items[0]?.id ?? "0";
  const live = useLive({
    afterId: first.current.after,
    agentId: id,
    max: 50,
    onRow: () => {
      if (timer.current) return;
      timer.current = setTimeout(() => {
        timer.current = undefined;
        void load();
      }, 3000);
    },
  });

  if (e === null) return <NotFound what={`There is no ${kind} with the id “${id}”.`} />;
  if (error && !e) return <ErrorNote error={error} />;
  if (!e) return <Loading what={`the ${kind}`} />;
  const rows = [...live.rows, ...e.recentEvents.items.filter((r) => !live.rows.some((x) => x.id === r.id))].slice(0, 50);
  const providers = e.providers?.items ?? [];
  const providerTotal = providers.reduce((a, p) => a + BigInt(p.amountSumWei), 0n);
  const providerMax = providers.reduce((m, p) => (BigInt(p.amountSumWei) > m ? BigInt(p.amountSumWei) : m), 0n);
  const trendByToken = new Map(e.byToken?.trend.map((t) => [t.day, t.byToken]));
  const points = e.trend.map((t) => ({ t: `${t.day}T00:00:00.000Z`, txCount: t.txCount, amountSumWei: t.amountSumWei, byToken: trendByToken.get(t.day) }));

  return (
    <div data-page={kind}>
      <div class="page-head">
        <div>
          <p class="crumbs">
            <a href={kind === "service" ? "/services" : "/agents"}>{kind === "service" ? "Services" : "Agents"}</a> / <span class="mono">{e.id}</span>
          </p>
          <h1>{e.label}</h1>
          <p class="lede">
            {kind === "service" ? "Paid service" : "AI agent"} · {e.category || "uncategorised"} · {e.active ? "watched" : "no longer watched"}
            {e.lastEventAt ? (
              <>
                {" "}
                · last activity <Time iso={e.lastEventAt} />
              </>
            ) : (
              " · no activity yet"
            )}
          </p>
        </div>
      </div>
      <section class="figures" aria-label="Totals">
        <Figure
          label="Payments, all time"
          name="total-payments"
          value={count(e.totals.txCount)}
          cur={e.totals.txCount}
          prev={undefined}
          hint="sent + received"
        />
        <VolumeFigure
          label="Volume, all time"
          name="total-volume"
          total={e.totals.amountSumWei}
          byToken={e.byToken?.totals.byToken ?? []}
          hint="sent + received"
        />
        <Figure
          label="Last 24 hours"
          name="payments-24h"
          value={count(e.txCount24h)}
          unit="payments"
          cur={e.txCount24h}
          prev={undefined}
          hint="sent + received"
        >
          <div class="figure-volume">
            <span class="muted">Volume</span>
            <TokenSum total={e.amountSumWei24h} byToken={e.byToken?.byToken24h} />
          </div>
        </Figure>
        <Figure label="Last 7 days" name="payments-7d" value={count(e.txCount7d)} unit="payments" cur={e.txCount7d} prev={undefined} hint="sent + received">
          <div class="figure-volume">
            <span class="muted">Volume</span>
            <TokenSum total={e.amountSumWei7d} byToken={e.byToken?.byToken7d} />
          </div>
        </Figure>
      </section>
      <ChartPair points={points} bucket="day" suffix=" per day, last 30 days" />
      <section class="card">
        <h2>Wallets</h2>
        {e.wallets.length === 0 ? (
          <p class="empty">No wallet is registered for this {kind}.</p>
        ) : (
          <ul class="wallets">
            {e.wallets.map((w) => (
              <li class="mono">{w}</li>
            ))}
          </ul>
        )}
        {e.totals.feeCount > 0 ? (
          <p class="muted small">
            Fees paid: {count(e.totals.feeCount)} ({sum(e.totals.feeSumWei)}), not counted as payments.
          </p>
        ) : null}
      </section>
      {e.providers ? (
        <section class="card">
          <h2>Providers reached through the gateway</h2>
          <p class="muted small">
            Pattern A: the escrow's settlement names the provider's address. Pattern B: the payment memo carries the provider's fingerprint. All time.
          </p>
          {providers.length === 0 ? (
            <p class="empty">No payment has been routed to a provider yet.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Provider</th>
                    <th scope="col">Detected by</th>
                    <th scope="col" class="r">
                      Payments
                    </th>
                    <th scope="col" class="r">
                      Volume
                    </th>
                    <th scope="col" class="r">
                      Share
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {providers.map((p) => (
                    <tr>
                      <td>
                        <a href={`/providers/${p.key}`}>{p.label ?? shortHex(p.key)}</a>
                        <div class="bar" aria-hidden="true">
                          <span style={{ width: `${barWidth(p.amountSumWei, providerMax)}%` }} />
                        </div>
                      </td>
                      <td>{p.pattern === "address" ? "address (A)" : "fingerprint (B)"}</td>
                      <td class="r num">{count(p.txCount)}</td>
                      <td class="r num">
                        <TokenSum total={p.amountSumWei} byToken={p.byToken} />
                      </td>
                      <td class="r num">{share(p.amountSumWei, providerTotal)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ) : null}
      <section class="card" aria-labelledby="rows-title">
        <div class="feed-head">
          <h2 id="rows-title">Recent ledger rows</h2>
          <LiveBadge state={live.state} paused={live.paused} onToggle={live.toggle} />
        </div>
        {rows.length === 0 ? (
          <Empty title="No rows yet">This {kind} has not sent or received a payment that the indexer has seen. New rows appear here live.</Empty>
        ) : (
          <EventsTable rows={rows} fresh={live.fresh} caption={`Newest ledger rows of ${e.label}`} showAgent={false} />
        )}
      </section>
    </div>
  );
}

interface ListItem {
  id: string;
  label: string;
  category: string;
  active: boolean;
  txCount24h: number;
  amountSumWei24h: string;
  txCount7d: number;
  amountSumWei7d: string;
  lastEventAt: string | null;
  byToken24h: TokenPart[];
  byToken7d: TokenPart[];
}
type SortKey = "label" | "txCount24h" | "amountSumWei24h" | "txCount7d" | "amountSumWei7d" | "lastEventAt";
const COLUMNS: { key: SortKey; label: string; numeric: boolean }[] = [
  { key: "label", label: "Name", numeric: false },
  { key: "txCount24h", label: "Payments 24 h", numeric: true },
  { key: "amountSumWei24h", label: "Volume 24 h", numeric: true },
  { key: "txCount7d", label: "Payments 7 d", numeric: true },
  { key: "amountSumWei7d", label: "Volume 7 d", numeric: true },
  { key: "lastEventAt", label: "Last activity", numeric: false },
];

function compare(a: ListItem, b: ListItem, key: SortKey): number {
  if (key === "label") return a.label.localeCompare(b.label);
  if (key === "lastEventAt") return (a.lastEventAt ?? "").localeCompare(b.lastEventAt ?? "");
  if (key === "amountSumWei24h" || key === "amountSumWei7d") {
    const x = BigInt(a[key]),
      y = BigInt(b[key]);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a[key] - b[key];
}

export function EntityList({ kind, url }: { kind: "service" | "agent"; url: URL }) {
  const [items, setItems] = useState<ListItem[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const recoveries = useStore(apiRecoveries);
  const plural = kind === "service" ? "services" : "agents";
  useEffect(() => {
    document.title = `${kind === "service" ? "Services" : "Agents"} — Agent Ledger`;
    gql<{ list: ListItem[] }>(
      `{ list: ${plural} { id label category active txCount24h amountSumWei24h txCount7d amountSumWei7d lastEventAt byToken24h { tokenAddress amountSumWei } byToken7d { tokenAddress amountSumWei } } }`,
    ).then((r) => {
      setItems(r.list);
      setError(null);
    }, setError);
  }, [kind, recoveries]);
  const sort = (COLUMNS.find((c) => c.key === url.searchParams.get("sort"))?.key ?? "amountSumWei7d") as SortKey;
  const dir = url.searchParams.get("dir") === "asc" ? "asc" : "desc";
  const sorted = items ? [...items].sort((a, b) => (dir === "asc" ? 1 : -1) * compare(a, b, sort) || a.id.localeCompare(b.id)) : null;
  const units = {
    amountSumWei24h: useSoleTokenUnit(items?.map((x) => x.byToken24h) ?? []),
    amountSumWei7d: useSoleTokenUnit(items?.map((x) => x.byToken7d) ?? []),
  };
  const hrefFor = (key: SortKey) => `/${plural}?sort=${key}&dir=${key === sort && dir === "desc" ? "asc" : "desc"}`;

  return (
    <div data-page={plural}>
      <div class="page-head">
        <div>
          <h1>{kind === "service" ? "Services" : "Agents"}</h1>
          <p class="lede">
            {kind === "service" ? "Curated paid services watched by the ledger" : "AI agents watched by the ledger"}, with their payments (sent + received) over
            the last 24 hours and 7 days. Select a column to sort.
          </p>
        </div>
      </div>
      {error && !items ? <ErrorNote error={error} /> : null}
      {!sorted ? (
        error ? null : (
          <Loading what={plural} />
        )
      ) : sorted.length === 0 ? (
        <Empty title={`No ${plural} registered`}>The registry loaded into this ledger has no {plural}. They appear once the registry lists them.</Empty>
      ) : (
        <div class="card table-wrap">
          <table class="list">
            <caption class="sr-only">
              {plural}, sorted by {COLUMNS.find((c) => c.key === sort)!.label} {dir === "asc" ? "ascending" : "descending"}
            </caption>
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th scope="col" class={c.numeric ? "r" : undefined} aria-sort={c.key === sort ? (dir === "asc" ? "ascending" : "descending") : undefined}>
                    <a href={hrefFor(c.key)} class="sort">
                      {c.label}
                      {c.key in units && units[c.key as keyof typeof units] ? (
                        <span class="muted small th-unit"> {units[c.key as keyof typeof units]}</span>
                      ) : null}
                      {c.key === sort ? (dir === "asc" ? " ▲" : " ▼") : ""}
                    </a>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {sorted.map((x) => (
                <tr data-id={x.id}>
                  <td>
                    <a href={`/${plural}/${encodeURIComponent(x.id)}`}>{x.label}</a>
                    <div class="muted small">
                      {x.category}
                      {x.active ? "" : " · not watched"}
                    </div>
                  </td>
                  <td class="r num">{count(x.txCount24h)}</td>
                  <td class="r num">
                    <TokenSum total={x.amountSumWei24h} byToken={x.byToken24h} bare={units.amountSumWei24h !== null} />
                  </td>
                  <td class="r num">{count(x.txCount7d)}</td>
                  <td class="r num">
                    <TokenSum total={x.amountSumWei7d} byToken={x.byToken7d} bare={units.amountSumWei7d !== null} />
                  </td>
                  <td class="nowrap">{x.lastEventAt ? <Time iso={x.lastEventAt} /> : <span class="muted">never</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export { Amount };
