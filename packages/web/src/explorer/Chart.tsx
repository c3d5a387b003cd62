// A time-series chart (uPlot, canvas). The chart's geometry uses floating-point numbers — a position on screen —
// but every number written as text (axis values aside) comes from the exact bigint values: the legend under the
// chart shows the hovered bucket's exact figures.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import { formatTokenUnits } from "@agent-ledger/core/formatTokenUnits";
import { count, localDateTime, localDay, utcTitle } from "./format.ts";
import { useStore } from "./store.ts";
import { commonUnit, tokens } from "./tokens.ts";

export interface SeriesPoint {
  t: string;
  txCount: number;
  amountSumWei: string;
}

interface ChartProps {
  points: SeriesPoint[];
  metric: "volume" | "count";
  bucket: "hour" | "day";
  label: string;
}

/** Axis labels only (positions on a plot): compact, "1.2M". Exact values are in the legend. */
const axisNumber = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";

/** Volume in whole tokens for plotting only (bigint → number after dividing: no precision matters here). */
const plotValue = (p: SeriesPoint, metric: ChartProps["metric"], decimals: number) =>
  metric === "count" ? p.txCount : decimals <= 2 ? Number(p.amountSumWei) / 10 ** decimals : Number(BigInt(p.amountSumWei) / 10n ** BigInt(decimals - 2)) / 100;

export function Chart({ points, metric, bucket, label }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);
  const [scheme, setScheme] = useState(() => matchMedia("(prefers-color-scheme: dark)").matches);
  // A volume series adds every token's raw units: drawn only when the allowlisted tokens share their decimals.
  const unit = commonUnit(useStore(tokens));
  const decimals = unit?.decimals ?? 6;
  const drawable = metric === "count" || unit !== null;

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
    const ys = points.map((p) => plotValue(p, metric, decimals));
    const fg = cssVar("--muted");
    const grid = cssVar("--line");
    const accent = metric === "volume" ? cssVar("--accent") : cssVar("--accent-2");
    const width = Math.max(200, el.clientWidth);
    const bars = uPlot.paths.bars!({ size: [0.8, 24] });
    const plot = new uPlot(
      {
        width,
        height: 180,
        legend: { show: false },
        cursor: { y: false, points: { show: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
          { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 56, values: (_u, v) => v.map((x) => axisNumber.format(x)) },
        ],
        series: [{}, { stroke: accent, fill: accent, width: 0, paths: bars, points: { show: false } }], // no outline: empty buckets draw nothing
        hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
      },
      [xs, ys],
      el,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 180 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [points, metric, scheme, decimals, drawable]);

  const p = hover !== null ? points[hover] : undefined;
  const volume = (units: string | bigint) => formatTokenUnits(units, { decimals, group: true });
  if (!drawable) {
    return (
      <figure class="chart">
        <figcaption><span class="chart-title">{label}</span></figcaption>
        <p class="muted small chart-note">The allowlisted tokens have different decimals, so their amounts are not added up per {bucket}; the volume of each token is in the figures above.</p>
      </figure>
    );
  }
  const total = metric === "count" ? count(points.reduce((a, x) => a + x.txCount, 0)) : volume(points.reduce((a, x) => a + BigInt(x.amountSumWei), 0n));
  return (
    <figure class="chart">
      <figcaption>
        <span class="chart-title">{label}</span>
        <span class="chart-legend" aria-live="off">
          {p ? (
            <>
              <time dateTime={p.t} title={utcTitle(p.t)}>{bucket === "hour" ? localDateTime(p.t) : localDay(p.t)}</time>
              {": "}
              <strong>{metric === "count" ? count(p.txCount) : volume(p.amountSumWei)}</strong>
            </>
          ) : (
            <>total <strong>{total}</strong></>
          )}
        </span>
      </figcaption>
      <div ref={box} class="chart-canvas" role="img" aria-label={`${label}: ${points.length} ${bucket === "hour" ? "hourly" : "daily"} bars, total ${total}`} />
    </figure>
  );
}

/** A page's two charts side by side: volume and payments count of the same points; labels "Volume<suffix>", "Payments<suffix>". */
export function ChartPair({ points, bucket, suffix }: { points: SeriesPoint[]; bucket: "hour" | "day"; suffix: string }) {
  return (
    <div class="charts">
      <section class="card"><Chart points={points} metric="volume" bucket={bucket} label={`Volume${suffix}`} /></section>
      <section class="card"><Chart points={points} metric="count" bucket={bucket} label={`Payments${suffix}`} /></section>
    </div>
  );
}
