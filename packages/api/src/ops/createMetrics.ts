import type { ReadRoutingStatus } from "@agent-ledger/db";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** A method label from a closed set (anything else is `other`), so clients cannot grow the label space. */
export function methodLabel(method: string | undefined): string {
  return method && KNOWN_METHODS.has(method) ? method : "other";
}

export interface MetricsOptions {
  /** Live-feed subscribers right now (read at scrape time); 0 while the feed does not provide it. */
  feedSubscriberCount?: () => number;
  /** Read routing over replicas (docs/operations.md, "Read replicas"); absent = no replica metrics. */
  readRouting?: () => ReadRoutingStatus;
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

  const routing = options.readRouting;
  if (routing) {
    // Read at scrape time from the routing's last probe round: one gauge per replica, one counter per target.
    const perReplica = (name: string, help: string, pick: (s: ReadRoutingStatus["sources"][number]) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ["replica"] as const,
        registers: [registry],
        collect() {
          for (const s of routing().sources) if (s.role === "replica") this.set({ replica: s.name }, pick(s) ?? Number.NaN);
        },
      });
    perReplica("agent_ledger_read_replica_up", "1 while the replica answered its last probe, else 0.", (s) => (s.up ? 1 : 0));
    perReplica(
      "agent_ledger_read_replica_eligible",
      "1 while new public reads may go to the replica (up, within the lag bound, not behind this process).",
      (s) => (s.eligible ? 1 : 0),
    );
    perReplica("agent_ledger_read_replica_lag_blocks", "The primary's indexer checkpoint minus the replica's; NaN when unknown.", (s) => s.lagBlocks);
    perReplica(
      "agent_ledger_read_replica_lag_seconds",
      "Seconds since the replica's last replayed commit while it trails the primary's WAL (0 caught up).",
      (s) => s.lagSeconds,
    );
    perReplica("agent_ledger_read_replica_lag_bytes", "Bytes of WAL the primary has that the replica has not replayed.", (s) => s.lagBytes);
    new Counter({
      name: "agent_ledger_reads_routed_total",
      help: "Public read queries answered, by target (primary or the replica's name); fallbacks count on the primary.",
      labelNames: ["target"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of routing().sources) this.inc({ target: s.name }, s.reads);
      },
    });
    new Counter({
      name: "agent_ledger_read_fallbacks_total",
      help: "Public reads that failed on a replica (down, shut down, cancelled) and were answered by the primary.",
      labelNames: ["replica"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const s of routing().sources) if (s.role === "replica") this.inc({ replica: s.name }, s.fallbacks);
      },
    });
  }

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
