import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/**
 * Prometheus metrics of one worker process (its own registry, so several workers can live in one
 * process in tests). Names (each prefixed `agent_ledger_`; docs/operations.md):
 *   webhook_delivery_attempts_total{type,outcome}      attempts by outcome: success | retry | gone | reject
 *   webhook_deliveries_completed_total{type,status}     deliveries finished: succeeded | dead
 *   webhook_delivery_attempt_duration_seconds{outcome}  POST latency (request start → end of response)
 *   webhook_delivery_jobs_skipped_total{reason}         jobs that sent nothing: stale | held | closed | missing
 *   webhook_queue_jobs{queue,state}                     BullMQ depth: waiting | delayed | active | prioritized | failed
 *   webhook_dispatch_deliveries_created_total           deliveries created by the dispatcher
 *   webhook_dispatch_cursor_event_id                    last agent_events id the dispatcher passed
 *   webhook_dispatch_errors_total, webhook_enqueue_failures_total, webhook_requeued_total (minute job)
 * plus the prom-client process defaults (agent_ledger_worker_process_*, agent_ledger_worker_nodejs_*).
 */
export function createWorkerMetrics(options: { queueCounts?: () => Promise<Record<string, Record<string, number>>>; defaults?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaults !== false) collectDefaultMetrics({ register: registry, prefix: "agent_ledger_worker_" });
  const attempts = new Counter({
    name: "agent_ledger_webhook_delivery_attempts_total",
    help: "Delivery attempts by outcome",
    labelNames: ["type", "outcome"] as const,
    registers: [registry],
  });
  const completed = new Counter({
    name: "agent_ledger_webhook_deliveries_completed_total",
    help: "Deliveries that reached a final status",
    labelNames: ["type", "status"] as const,
    registers: [registry],
  });
  const attemptDuration = new Histogram({
    name: "agent_ledger_webhook_delivery_attempt_duration_seconds",
    help: "Latency of one webhook POST",
    labelNames: ["outcome"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const skipped = new Counter({
    name: "agent_ledger_webhook_delivery_jobs_skipped_total",
    help: "Delivery jobs that sent nothing",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  const deliveriesCreated = new Counter({
    name: "agent_ledger_webhook_dispatch_deliveries_created_total",
    help: "Deliveries created by the dispatcher",
    registers: [registry],
  });
  const dispatchCursor = new Gauge({
    name: "agent_ledger_webhook_dispatch_cursor_event_id",
    help: "Last agent_events id passed by this process's dispatcher",
    registers: [registry],
  });
  const dispatchErrors = new Counter({ name: "agent_ledger_webhook_dispatch_errors_total", help: "Failed dispatch passes", registers: [registry] });
  const enqueueFailures = new Counter({
    name: "agent_ledger_webhook_enqueue_failures_total",
    help: "Enqueue calls that failed (healed by the minute job)",
    registers: [registry],
  });
  const requeued = new Counter({ name: "agent_ledger_webhook_requeued_total", help: "Due deliveries re-added by the minute job", registers: [registry] });
  const queueCounts = options.queueCounts;
  new Gauge({
    name: "agent_ledger_webhook_queue_jobs",
    help: "BullMQ jobs by queue and state",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      if (!queueCounts) return;
      this.reset();
      try {
        for (const [queue, counts] of Object.entries(await queueCounts())) for (const [state, n] of Object.entries(counts)) this.set({ queue, state }, n);
      } catch {
        // Redis unavailable: report nothing rather than failing the scrape.
      }
    },
  });
  return { registry, attempts, completed, attemptDuration, skipped, deliveriesCreated, dispatchCursor, dispatchErrors, enqueueFailures, requeued };
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
