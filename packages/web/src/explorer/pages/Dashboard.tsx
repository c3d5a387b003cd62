import { useStore } from "../../shared/store.ts";
import { useEffect, useRef, useState } from "preact/hooks";
import { apiRecoveries, gql, takeFirstAnswer, type Row } from "../api.ts";
import { DASHBOARD_QUERY, WINDOWS, windowOf, type Window } from "../dashboardQuery.ts";
import { setTokens, type TokenInfo } from "../../shared/tokens.ts";
import { ChartPair, type SeriesPoint } from "../Chart.tsx";
import { Empty, ErrorNote, EventsTable, Figure, LiveBadge, Loading, TopTable, VolumeFigure, type TokenPart } from "../components.tsx";
import { count, shortHex } from "../../shared/format.ts";
import { navigate, useLocation } from "../../shared/router.tsx";
import { useLive } from "../useLive.ts";

const WINDOW_LABEL: Record<Window, string> = { "24h": "24 hours", "7d": "7 days", "30d": "30 days", all: "All time" };

interface Top {
  id: string;
  label: string;
  category: string;
  txCount: number;
  amountSumWei: string;
  byToken: TokenPart[];
}
interface TopProvider {
  key: string;
  pattern: string;
  label: string | null;
  txCount: number;
  amountSumWei: string;
  byToken: TokenPart[];
}
interface Figures {
  txCount: number;
  amountSumWei: string;
  agentsActive: number;
  providersDetected: number;
}
/** One token's share of the window (`amountSumWei` in that token's own raw units). */
export interface TokenAmount {
  tokenAddress: string;
  symbol: string | null;
  decimals: number | null;
  currency: string | null;
  txCount: number;
  amountSumWei: string;
}
export interface DashboardData {
  dashboard: Figures & {
    window: string;
    byToken: TokenAmount[];
    previous: Figures | null;
    topServices: Top[];
    topAgents: Top[];
    topProviders: TopProvider[];
    recentEvents: Row[];
  };
  activitySeries: { bucket: "hour" | "day"; points: SeriesPoint[] };
  tokens: TokenInfo[];
}

export function Dashboard() {
  const url = useLocation();
  const window = windowOf(url);
  // The first answer: inlined in the HTML (drawn by the first render), else the request boot.ts sent (takeFirstAnswer).
  const firstAnswer = useRef<ReturnType<typeof takeFirstAnswer<DashboardData>> | null>(null);
  const [data, setData] = useState<Record<string, DashboardData>>(() => {
    const a = (firstAnswer.current = takeFirstAnswer<DashboardData>("dashboard", window));
    if (!a || !("data" in a)) return {};
    setTokens(a.data.tokens);
    return { [window]: a.data };
  });
  const [error, setError] = useState<unknown>(null);
  const recoveries = useStore(apiRecoveries);
  const refreshTimer = useRef<ReturnType<typeof setTimeout>>();
  const d = data[window];

  const load = (w: Window) => {
    const booted = firstAnswer.current && "response" in firstAnswer.current ? firstAnswer.current.response : null;
    firstAnswer.current = null;
    return (booted ?? gql<DashboardData>(DASHBOARD_QUERY, { w })).then(
      (r) => {
        setTokens(r.tokens);
        setData((old) => ({ ...old, [w]: r }));
        setError(null);
      },
      (e) => setError(e),
    );
  };
  useEffect(() => {
    document.title = "Agent Ledger — live payments of AI agents on Tempo";
  }, []);
  const drawn = useRef(d !== undefined); // the inlined answer is on screen already: no first load
  useEffect(() => {
    if (drawn.current) return void (drawn.current = false);
    void load(window);
  }, [window, recoveries]);

  // The feed starts after the newest row the first answer holds (no gap between the query and the stream).
  const first = useRef<string | null | undefined>(undefined);
  if (first.current === undefined && d) first.current = d.dashboard.recentEvents[0]?.id ?? "0";
  const live = useLive({
    afterId: first.current,
    max: 30,
    onRow: () => {
      // New rows change the figures: re-read them (at most every 3 s).
      if (refreshTimer.current) return;
      refreshTimer.current = setTimeout(() => {
        refreshTimer.current = undefined;
        void load(windowOf(new URL(location.href)));
      }, 3000);
    },
  });
  useEffect(() => () => clearTimeout(refreshTimer.current), []);

  // Progressive first paint: the headline figures and charts are drawn first, the rankings and the feed's rows in the
  // next frame (their ~100 table rows would otherwise delay the first meaningful paint on a slow device).
  const [rest, setRest] = useState(false);
  useEffect(() => {
    if (!d || rest) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => setRest(true), 0)));
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [d !== undefined]);

  const feed = [...live.rows, ...((rest && d?.dashboard.recentEvents) || []).filter((r) => !live.rows.some((x) => x.id === r.id))].slice(0, 30);
  const prevLabel = window === "all" ? undefined : WINDOW_LABEL[window];

  return (
    <div class="dashboard" data-page="dashboard">
      <div class="page-head">
        <div>
          <h1>Live payments of AI agents</h1>
          <p class="lede">Every payment between watched AI agents and paid services on the Tempo chain, counted once, as the indexer records it.</p>
        </div>
        <div class="window-switch" role="group" aria-label="Time window">
          {WINDOWS.map((w) => (
            <a
              href={w === "24h" ? "/" : `/?window=${w}`}
              aria-current={w === window ? "true" : undefined}
              class={w === window ? "active" : undefined}
              onClick={(e) => {
                e.preventDefault();
                navigate(w === "24h" ? "/" : `/?window=${w}`, { replace: true });
              }}
            >
              {w === "all" ? "All" : w}
            </a>
          ))}
        </div>
      </div>
      {error && !d ? <ErrorNote error={error} /> : null}
      {!d ? (
        <Loading what="the dashboard" />
      ) : (
        <>
          <section class="figures" aria-label={`Headline figures, ${WINDOW_LABEL[window]}`} data-window={window}>
            <Figure label="Payments" value={count(d.dashboard.txCount)} cur={d.dashboard.txCount} prev={d.dashboard.previous?.txCount} hint={prevLabel} />
            <VolumeFigure
              label="Volume"
              name="volume"
              total={d.dashboard.amountSumWei}
              byToken={d.dashboard.byToken}
              prev={d.dashboard.previous?.amountSumWei}
              hint={prevLabel}
            />
            <Figure
              label="Active agents"
              value={count(d.dashboard.agentsActive)}
              cur={d.dashboard.agentsActive}
              prev={d.dashboard.previous?.agentsActive}
              hint={prevLabel}
            />
            <Figure
              label="Providers detected"
              value={count(d.dashboard.providersDetected)}
              cur={d.dashboard.providersDetected}
              prev={d.dashboard.previous?.providersDetected}
              hint={prevLabel}
            />
          </section>
          {d.dashboard.txCount === 0 && d.dashboard.recentEvents.length === 0 ? (
            <Empty title="No payments indexed yet">
              The ledger is empty so far. A fresh devnet starts with no history: the demo agents begin paying services within a minute, and every new payment
              appears in the live feed below without reloading.
            </Empty>
          ) : null}
          <ChartPair points={d.activitySeries.points} bucket={d.activitySeries.bucket} suffix={` per ${d.activitySeries.bucket}`} />
          {rest ? (
            <div class="tops">
              <TopTable
                title="Top services"
                empty={`No service was paid in the last ${WINDOW_LABEL[window].toLowerCase()}.`}
                rows={d.dashboard.topServices.map((t) => ({
                  href: `/services/${encodeURIComponent(t.id)}`,
                  name: t.label,
                  sub: t.category,
                  txCount: t.txCount,
                  amountSumWei: t.amountSumWei,
                  byToken: t.byToken,
                }))}
              />
              <TopTable
                title="Top agents"
                empty={`No agent paid or was paid in the last ${WINDOW_LABEL[window].toLowerCase()}.`}
                rows={d.dashboard.topAgents.map((t) => ({
                  href: `/agents/${encodeURIComponent(t.id)}`,
                  name: t.label,
                  sub: t.category,
                  txCount: t.txCount,
                  amountSumWei: t.amountSumWei,
                  byToken: t.byToken,
                }))}
              />
              <TopTable
                title="Top providers (via the MPP gateway)"
                empty="No payment was routed through the gateway to a provider in this window."
                rows={d.dashboard.topProviders.map((p) => ({
                  href: `/providers/${p.key}`,
                  name: p.label ?? shortHex(p.key),
                  sub: p.pattern === "address" ? "by address (pattern A)" : "by memo fingerprint (pattern B)",
                  txCount: p.txCount,
                  amountSumWei: p.amountSumWei,
                  byToken: p.byToken,
                }))}
              />
            </div>
          ) : null}
        </>
      )}
      <section class="card feed" aria-labelledby="feed-title">
        <div class="feed-head">
          <h2 id="feed-title">Live feed</h2>
          <LiveBadge state={live.state} paused={live.paused} onToggle={live.toggle} />
        </div>
        <p class="muted small">
          New ledger rows as the indexer records them (GraphQL subscription <code>ledgerEvents</code>); after a lost connection the feed resumes where it
          stopped.
        </p>
        {feed.length === 0 ? (
          <p class="empty">{d && !rest ? "Loading the newest rows…" : "Waiting for the first payment…"}</p>
        ) : (
          <EventsTable rows={feed} fresh={live.fresh} caption="Newest ledger rows" />
        )}
      </section>
    </div>
  );
}
