import { useStore } from "../../shared/store.ts";
import { useEffect, useState } from "preact/hooks";
import { apiRecoveries, gql } from "../api.ts";
import { ChartPair, type SeriesPoint } from "../Chart.tsx";
import { ErrorNote, Figure, Loading, NotFound, VolumeFigure, type TokenPart } from "../components.tsx";
import { Time } from "../../shared/components.tsx";
import { count } from "../../shared/format.ts";

interface ProviderData {
  key: string;
  pattern: "address" | "fingerprint";
  address: string | null;
  fingerprint: string | null;
  label: string | null;
  txCount: number;
  amountSumWei: string;
  firstSeenAt: string;
  lastSeenAt: string;
  byToken: TokenPart[];
}

/** A provider key: an address or a memo fingerprint (the API refuses any other `providerKey` with `invalid_query`). */
const PROVIDER_KEY = /^0x[0-9a-f]{20}(?:[0-9a-f]{20})?$/i;

export function ProviderPage({ providerKey }: { providerKey: string }) {
  const [p, setP] = useState<ProviderData | null | undefined>(undefined);
  const [series, setSeries] = useState<SeriesPoint[]>([]);
  const [error, setError] = useState<unknown>(null);
  const recoveries = useStore(apiRecoveries);
  useEffect(() => {
    if (!PROVIDER_KEY.test(providerKey.trim())) return void setP(null); // no provider has such a key: not found
    gql<{ provider: ProviderData | null; activitySeries: { points: SeriesPoint[] } | null }>(
      `query($k: String!) { provider(key: $k) { key pattern address fingerprint label txCount amountSumWei firstSeenAt lastSeenAt byToken { tokenAddress amountSumWei } }
        activitySeries(window: "30d", providerKey: $k) { points { t txCount amountSumWei byToken { tokenAddress amountSumWei } } } }`,
      { k: providerKey },
    )
      .then(async (r) => {
        let points = r.activitySeries?.points ?? [];
        // found by its other key (a linked fingerprint, or the address a fingerprint names): the series is under its own key
        if (r.provider && r.provider.key !== providerKey.toLowerCase()) {
          const s = await gql<{ activitySeries: { points: SeriesPoint[] } | null }>(
            `query($k: String!) { activitySeries(window: "30d", providerKey: $k) { points { t txCount amountSumWei byToken { tokenAddress amountSumWei } } } }`,
            { k: r.provider.key },
          );
          points = s.activitySeries?.points ?? [];
        }
        setP(r.provider);
        setSeries(points);
      })
      .catch(setError);
  }, [providerKey, recoveries]);
  useEffect(() => {
    if (p) document.title = `${p.label ?? p.key} (provider) — Agent Ledger`;
  }, [p?.key]);

  if (p === null) return <NotFound what={`No payment was ever routed to a provider with the key “${providerKey}”.`} />;
  if (error && !p) return <ErrorNote error={error} />;
  if (!p) return <Loading what="the provider" />;
  return (
    <div data-page="provider">
      <div class="page-head">
        <div>
          <p class="crumbs">
            <a href="/services/tempo-gateway-mpp">MPP gateway</a> / provider
          </p>
          <h1>{p.label ?? "Unlabelled provider"}</h1>
          <p class="lede">
            Reached through the MPP gateway, detected{" "}
            {p.pattern === "address" ? "by address: the escrow's settlement names it (pattern A)" : "by the fingerprint in the payment memo (pattern B)"}.
          </p>
        </div>
      </div>
      <section class="figures" aria-label="Totals">
        <Figure label="Payments routed" name="provider-payments" value={count(p.txCount)} cur={p.txCount} prev={undefined} />
        <VolumeFigure label="Volume routed" name="provider-volume" total={p.amountSumWei} byToken={p.byToken} />
        <div class="figure">
          <div class="figure-label">First payment (hour, UTC bucket)</div>
          <div class="figure-value small-value">
            <Time iso={p.firstSeenAt} />
          </div>
        </div>
        <div class="figure">
          <div class="figure-label">Latest payment (hour, UTC bucket)</div>
          <div class="figure-value small-value">
            <Time iso={p.lastSeenAt} />
          </div>
        </div>
      </section>
      <ChartPair points={series} bucket="day" suffix=" routed per day, last 30 days" />
      <section class="card">
        <h2>Identity</h2>
        <dl class="facts">
          <dt>Key</dt>
          <dd class="mono">{p.key}</dd>
          <dt>Address</dt>
          <dd class="mono">{p.address ?? <span class="muted">unknown (only its memo fingerprint is seen)</span>}</dd>
          <dt>Fingerprint</dt>
          <dd class="mono">{p.fingerprint ?? <span class="muted">none (pattern A)</span>}</dd>
        </dl>
      </section>
    </div>
  );
}
