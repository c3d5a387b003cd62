import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** A method label from a closed set (anything else is `other`), so clients cannot grow the label space. */
export function methodLabel(method: string | undefined): string {
  return method && KNOWN_METHODS.has(method) ? method : "other";
}

export interface MetricsOptions {
  /** Live-feed subscribers right now (read at scrape time); 0 while the feed does not provide it. */
  feedSubscriberCount?: () => number;
  /** Runs before each scrape (e.g. refreshes the indexer lag gauge); its failures never fail the scrape. */
  beforeScrape?: () => Promise<void>;
}

/**
 * The app's Prometheus metrics in their own Registry (never the global one, so two apps in one process — tests,
 * benchmarks — do not collide): default process metrics, HTTP counters and latency by route template, the live
 * feed's subscriber count, and the indexer's distance to the chain head. Every name starts with `agent_ledger_`
 * (docs/operations.md lists them all).
 */
export function createMetrics(options: MetricsOptions = {}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "agent_ledger_api_" });

  const httpRequests = new Counter({
    name: "agent_ledger_http_requests_total",
    help: "HTTP requests answered, by method, route template and status code.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: "agent_ledger_http_request_duration_seconds",
    help: "Time from request to the end of the response, by method and route template (server-sent event streams excluded).",
    labelNames: ["method", "route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const feedCount = options.feedSubscriberCount;
  new Gauge({
    name: "agent_ledger_feed_subscribers",
    help: "Clients currently subscribed to the live feed (SSE /api/feed and GraphQL subscriptions).",
    registers: [registry],
    collect() {
      let n = 0;
      try {
        n = feedCount?.() ?? 0;
      } catch {
        n = Number.NaN;
      }
      this.set(n);
    },
  });
  const headLag = new Gauge({
    name: "agent_ledger_api_indexer_lag_blocks",
    help: "Chain head (TEMPO_RPC_URL eth_blockNumber) minus the indexer checkpoint's last block; NaN when unknown.",
    registers: [registry],
  });
  headLag.set(Number.NaN);
  const checkpointAge = new Gauge({
    name: "agent_ledger_api_indexer_checkpoint_age_seconds",
    help: "Seconds since the indexer checkpoint last moved; NaN when unknown.",
    registers: [registry],
  });
  checkpointAge.set(Number.NaN);

  return {
    registry,
    contentType: registry.contentType,
    observeRequest(method: string, route: string, status: number, seconds: number, stream: boolean): void {
      httpRequests.inc({ method, route, status: String(status) });
      if (!stream) httpDuration.observe({ method, route }, seconds);
    },
    setIndexerLag(lagBlocks: number | null, ageSeconds: number | null): void {
      headLag.set(lagBlocks ?? Number.NaN);
      checkpointAge.set(ageSeconds ?? Number.NaN);
    },
    /** The exposition text (refreshes the scrape-time gauges first). */
    async render(): Promise<string> {
      if (options.beforeScrape) await options.beforeScrape().catch(() => {});
      return registry.metrics();
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
