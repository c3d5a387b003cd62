// A time-series chart (uPlot, canvas). The chart's geometry uses floating-point numbers — a position on screen —
// but every number written as text (axis values aside) comes from the exact bigint values: the legend under the
// chart shows the hovered bucket's exact figures.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { count, localDateTime, localDay, utcTitle } from "../shared/format.ts";
import { useStore } from "../shared/store.ts";
import { commonUnit, tokenAmountText, tokens, type TokenInfo } from "../shared/tokens.ts";

export interface SeriesPoint {
  t: string;
  txCount: number;
  amountSumWei: string;
  /** The bucket's volume per token (methodology v0.2; empty on v0.1, absent when the page did not ask). */
  byToken?: { tokenAddress: string; amountSumWei: string }[];
}

interface ChartProps {
  points: SeriesPoint[];
  metric: "volume" | "count";
  bucket: "hour" | "day";
  label: string;
}

/** One token's series of a volume chart split by token: raw units per bucket (exact), decimals for geometry only. */
interface TokenSeries {
  address: string;
  decimals: number;
  units: bigint[];
}

/** Axis labels only (positions on a plot): compact, "1.2M". Exact values are in the legend. */
const axisNumber = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
/** The colour of a token's series (and legend swatch): the first token keeps the volume chart's accent. */
const tokenColor = (k: number) => (k % 4 === 0 ? "--accent" : `--tok-${k % 4}`);

/** Whole tokens for plotting only (bigint → number after dividing: no precision matters here). */
const plotUnits = (units: string | bigint, decimals: number) =>
  decimals <= 2 ? Number(units) / 10 ** decimals : Number(BigInt(units) / 10n ** BigInt(decimals - 2)) / 100;

/**
 * The volume chart's series per token, or null when one summed series is right: one token (or none) and the
 * allowlisted tokens share their decimals — the chart as before. Several tokens (or decimals that differ): one series
 * per token in the allowlist's order (tokens it does not list after them, in raw units). Null too when the answer has
 * no split (v0.1) although it has volume: that sum is not drawn when decimals differ.
 */
function splitByToken(points: SeriesPoint[], list: ReadonlyMap<string, TokenInfo> | null, shared: boolean): TokenSeries[] | null {
  const seen = new Set<string>();
  for (const p of points) for (const t of p.byToken ?? []) seen.add(t.tokenAddress.toLowerCase());
  if (shared && seen.size <= 1) return null;
  if (seen.size === 0) {
    if (points.some((p) => BigInt(p.amountSumWei) !== 0n) || !list) return null;
    for (const a of list.keys()) seen.add(a); // an empty window: each allowlisted token at zero
  }
  const order = [...(list?.keys() ?? [])].filter((a) => seen.has(a));
  for (const a of seen) if (!order.includes(a)) order.push(a);
  return order.map((address) => ({
    address,
    decimals: list?.size ? (list.get(address)?.decimals ?? 0) : 6,
    units: points.map((p) => p.byToken?.reduce((s, t) => (t.tokenAddress.toLowerCase() === address ? s + BigInt(t.amountSumWei) : s), 0n) ?? 0n),
  }));
}

export function Chart({ points, metric, bucket, label }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  const [scheme, setScheme] = useState(() => matchMedia("(prefers-color-scheme: dark)").matches);
  const list = useStore(tokens);
  // One summed volume series adds every token's raw units: only when the allowlisted tokens share their decimals.
  // Otherwise (or with several tokens in the window) the volume chart has one series per token, each in its units.
  const unit = commonUnit(list);
  const decimals = unit?.decimals ?? 6;
  const split = metric === "volume" ? splitByToken(points, list, unit !== null) : null;
  const drawable = metric === "count" || unit !== null || split !== null;
  const splitKey = split?.map((t) => `${t.address}:${t.decimals}`).join() ?? "";

  useEffect(() => {
    const mq = matchMedia("(prefers-color-scheme: dark)");
    const onChange = () => setScheme(mq.matches);
    mq.addEventListener("change", onChange);
    return () => mq.removeEventListener("change", onChange);
  }, []);

  // (a layout effect: the chart is drawn in the same task as the page's render, not a frame later)
  useLayoutEffect(() => {
    const el = box.current;
    if (!el || !drawable) return;
    const xs = points.map((p) => new Date(p.t).getTime() / 1000);
    const fg = cssVar("--muted");
    const grid = cssVar("--line");
    const width = Math.max(200, el.clientWidth);
    const xAxis: uPlot.Axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
    const yAxis = (scale: string, stroke: string, side: 1 | 3, showGrid: boolean): uPlot.Axis => ({
      scale,
      side,
      stroke,
      grid: { show: showGrid, stroke: grid, width: 1 },
      ticks: { stroke: grid },
      size: 56,
      values: (_u, v) => v.map((x) => axisNumber.format(x)),
    });
    const range: uPlot.Range.Function = (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1];
    let series: uPlot.Series[];
    let data: uPlot.AlignedData;
    let scales: uPlot.Scales = { x: { time: true } };
    let axes: uPlot.Axis[];
    if (split) {
      // One bar per token in each bucket, side by side; each token on its own y scale (whole tokens of that token:
      // magnitudes of different tokens are not comparable). The first two tokens' scales are the left and right axes.
      const n = split.length;
      const step = xs.length > 1 ? (xs.at(-1)! - xs[0]!) / (xs.length - 1) : bucket === "hour" ? 3600 : 86400;
      const width1 = (step * 0.8) / n;
      const colors = split.map((_t, k) => cssVar(tokenColor(k)));
      series = [
        {},
        ...split.map((_t, k): uPlot.Series => {
          const bars = uPlot.paths.bars!({
            size: [1, Infinity],
            disp: {
              x0: { unit: 1, values: (u) => (u.data[0] as number[]).map((x) => x - step * 0.4 + k * width1) },
              size: { unit: 1, values: () => [width1] },
            },
          });
          return { scale: `t${k}`, stroke: colors[k], fill: colors[k], width: 0, paths: bars, points: { show: false } };
        }),
      ];
      data = [xs, ...split.map((t) => t.units.map((u) => plotUnits(u, t.decimals)))];
      for (let k = 0; k < n; k++) scales[`t${k}`] = { range };
      // half a bucket of room at each end: the side-by-side bars of the first and the last bucket are drawn whole (the
      // x scale ended at the last bucket's time, so its second token's bar, right of it, was not drawn at all)
      scales.x = { time: true, range: (_u, min, max) => [min - step / 2, max + step / 2] };
      axes = [xAxis, ...split.slice(0, 2).map((_t, k) => yAxis(`t${k}`, colors[k]!, k === 0 ? 3 : 1, k === 0))];
    } else {
      const accent = metric === "volume" ? cssVar("--accent") : cssVar("--accent-2");
      const bars = uPlot.paths.bars!({ size: [0.8, 24] });
      series = [{}, { stroke: accent, fill: accent, width: 0, paths: bars, points: { show: false } }]; // no outline: empty buckets draw nothing
      data = [xs, points.map((p) => (metric === "count" ? p.txCount : plotUnits(p.amountSumWei, decimals)))];
      scales = { x: { time: true }, y: { range } };
      axes = [xAxis, yAxis("y", fg, 3, true)];
    }
    const plot = new uPlot(
      {
        width,
        height: 180,
        legend: { show: false },
        cursor: { y: false, points: { show: false } },
        scales,
        axes,
        series,
        hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
      },
      data,
      el,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 180 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [points, metric, scheme, decimals, drawable, splitKey]);

  const p = hover !== null ? points[hover] : undefined;
  const volume = (units: string | bigint) => formatTokenUnits(units, { decimals, group: true });
  if (!drawable) {
    return (
      <figure class="chart">
        <figcaption>
          <span class="chart-title">{label}</span>
        </figcaption>
        <p class="muted small chart-note">
          The allowlisted tokens have different decimals, so their amounts are not added up per {bucket}; the volume of each token is in the figures above.
        </p>
      </figure>
    );
  }
  const kind = `${points.length} ${bucket === "hour" ? "hourly" : "daily"} bars`;
  // split by token: each token's exact amount (the hovered bucket's, else the window's total) with its symbol
  const sums = split?.map((t) => t.units.reduce((a, x) => a + x, 0n));
  const amounts = split?.map((t, k) => tokenAmountText(hover !== null && p ? (t.units[hover] ?? 0n) : sums![k]!, t.address, list));
  const total = split
    ? split.map((t, k) => Object.values(tokenAmountText(sums![k]!, t.address, list)).join(" ")).join(", ")
    : metric === "count"
      ? count(points.reduce((a, x) => a + x.txCount, 0))
      : volume(points.reduce((a, x) => a + BigInt(x.amountSumWei), 0n));
  return (
    <figure class="chart" data-series={split?.length ?? 1}>
      <figcaption>
        <span class="chart-title">{label}</span>
        <span class="chart-legend" aria-live="off">
          {p ? (
            <>
              <time dateTime={p.t} title={utcTitle(p.t)}>
                {bucket === "hour" ? localDateTime(p.t) : localDay(p.t)}
              </time>
              {": "}
              {!split && <strong>{metric === "count" ? count(p.txCount) : volume(p.amountSumWei)}</strong>}
            </>
          ) : (
            <>total {!split && <strong>{total}</strong>}</>
          )}
          {split?.map((t, k) => (
            <span class="chart-token" data-token={t.address} key={t.address}>
              <i class="chart-swatch" aria-hidden="true" style={{ background: `var(${tokenColor(k)})` }} />
              <strong>{amounts![k]!.value}</strong> {amounts![k]!.unit}
            </span>
          ))}
        </span>
      </figcaption>
      <div
        ref={box}
        class="chart-canvas"
        role="img"
        aria-label={`${label}: ${kind}${split ? " per token, each token on its own scale" : ""}, total ${total}`}
      />
    </figure>
  );
}

/** A page's two charts side by side: volume and payments count of the same points; labels "Volume<suffix>", "Payments<suffix>". */
export function ChartPair({ points, bucket, suffix }: { points: SeriesPoint[]; bucket: "hour" | "day"; suffix: string }) {
  return (
    <div class="charts">
      <section class="card">
        <Chart points={points} metric="volume" bucket={bucket} label={`Volume${suffix}`} />
      </section>
      <section class="card">
        <Chart points={points} metric="count" bucket={bucket} label={`Payments${suffix}`} />
      </section>
    </div>
  );
}
