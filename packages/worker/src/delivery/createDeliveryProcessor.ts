import { classifyOutcome, openSecret, parseRetryAfter, planAfterAttempt } from "@agent-ledger/core";
import type { Queue } from "bullmq";
import type pg from "pg";
import type { Logger } from "pino";
import type { WorkerMetrics } from "../ops/createWorkerMetrics.ts";
import type { DeliveryJobData } from "../queue/deliveryJob.ts";
import { enqueueDeliveries } from "../queue/enqueueDeliveries.ts";
import { buildDeliveryRequest, type DeliveryContent } from "./buildDeliveryRequest.ts";
import { claimDeliveries, type ClaimRequest, type ClaimResult } from "./claimDelivery.ts";
import { createBatcher } from "./createBatcher.ts";
import type { WebhookClient } from "./createWebhookClient.ts";
import { recordAttempt, recordSuccesses, type AttemptReport, type RecordResult } from "./recordAttempt.ts";

export interface DeliveryProcessorDeps {
  pool: pg.Pool;
  queue: Queue<DeliveryJobData>;
  client: WebhookClient;
  masterKey: Buffer;
  log: Logger;
  metrics?: WorkerMetrics;
  now: () => Date;
  random: () => number;
  /** Observability hook: called after every recorded attempt (tests use it to check the schedule). */
  onAttempt?: (attempt: AttemptInfo) => void;
}

export interface AttemptInfo {
  deliveryId: string;
  subscriptionId: string;
  type: "event" | "verify" | "test";
  attempt: number;
  claimedAt: Date;
  finishedAt: Date;
  outcome: string;
  httpStatus: number | null;
  status: string;
  nextAttemptAt: Date | null;
  recorded: boolean;
}

export interface DeliveryProcessorOptions {
  /** Claim lease in real ms (> the HTTP timeout). */
  leaseMs: number;
  /** Divides real waits (retry job delays, the lease) for tests; 1 in production. */
  delayScale: number;
}

export type ProcessOutcome = { sent: false; reason: string } | { sent: true; attempt: number; outcome: string; status: string; recorded: boolean };

/**
 * The delivery job, thin: claim the attempt (load delivery + subscription + event), decrypt the secret,
 * build and sign the body, POST, record with core planAfterAttempt, and enqueue the next attempt when
 * the plan says retrying. Every step that matters is in PostgreSQL; the queue only carries "when".
 */
export function createDeliveryProcessor(deps: DeliveryProcessorDeps, options: DeliveryProcessorOptions) {
  const scale = options.delayScale > 0 ? options.delayScale : 1;
  // Concurrent jobs share their claim statement and their success-record statement (group commit):
  // two statements per batch instead of two per delivery. Claims go out at once (they gate the POST);
  // success records, which nobody waits for, collect for up to 5 ms.
  const claim = createBatcher<ClaimRequest, { result: ClaimResult; claimedAt: Date }>(async (requests) => {
    const claimedAt = deps.now();
    const results = await claimDeliveries(deps.pool, requests, { now: claimedAt, leaseUntil: new Date(claimedAt.getTime() + options.leaseMs * scale) });
    return results.map((result) => ({ result, claimedAt }));
  });
  const recordSuccess = createBatcher<AttemptReport, boolean>((reports) => recordSuccesses(deps.pool, reports), { windowMs: 5 });
  async function record(report: AttemptReport): Promise<RecordResult> {
    if (classifyOutcome(report.result) !== "success") return recordAttempt(deps.pool, report);
    const plan = planAfterAttempt({
      attempt: report.attempt,
      result: report.result,
      subscription: { status: "active", consecutiveFailures: 0 },
      now: report.now,
      random: report.random,
    });
    return { recorded: await recordSuccess(report), plan, subscriptionChanged: false };
  }

  return async function processDelivery(job: DeliveryJobData): Promise<ProcessOutcome> {
    const { deliveryId, attempt } = job;
    const { result: claimed, claimedAt } = await claim({ deliveryId, attempt });
    if (!claimed.claimed) {
      deps.metrics?.skipped.inc({ reason: claimed.reason });
      deps.log.debug({ deliveryId, attempt, reason: claimed.reason, detail: claimed.detail }, "delivery job skipped");
      return { sent: false, reason: claimed.reason };
    }
    const d = claimed.delivery;

    let secret: string;
    let content: DeliveryContent;
    try {
      secret = openSecret(d.signingSecretCiphertext, deps.masterKey, d.subscriptionId);
      if (d.type === "verify") {
        if (!d.verifyTokenCiphertext) throw new Error("subscription has no sealed verify token");
        content = {
          type: "verify",
          deliveryId: d.id,
          subscriptionId: d.subscriptionId,
          verifyToken: openSecret(d.verifyTokenCiphertext, deps.masterKey, d.subscriptionId),
        };
      } else if (d.type === "test") {
        content = { type: "test", deliveryId: d.id, subscriptionId: d.subscriptionId };
      } else {
        if (!d.event) {
          await deps.pool.query(
            `UPDATE webhook_deliveries SET status = 'dead', last_error = 'event row no longer exists', next_attempt_at = NULL, completed_at = $3, updated_at = now()
              WHERE id = $1 AND attempts = $2`,
            [d.id, d.attempt, claimedAt],
          );
          deps.metrics?.completed.inc({ type: d.type, status: "dead" });
          return { sent: false, reason: "event_missing" };
        }
        content = { type: "event", deliveryId: d.id, subscriptionId: d.subscriptionId, event: d.event };
      }
    } catch (error) {
      // Our problem (wrong SECRETS_MASTER_KEY?), not the receiver's: give the attempt back, retry in a minute, fail loudly.
      await deps.pool.query(
        `UPDATE webhook_deliveries SET attempts = attempts - 1, next_attempt_at = $3, last_error = $4, updated_at = now()
          WHERE id = $1 AND attempts = $2 AND status IN ('pending', 'retrying')`,
        [d.id, d.attempt, new Date(claimedAt.getTime() + 60_000 * scale), "worker could not open the subscription's sealed secrets (check SECRETS_MASTER_KEY)"],
      );
      deps.log.error({ err: error, deliveryId: d.id, subscriptionId: d.subscriptionId }, "cannot open sealed webhook secrets");
      throw error;
    }

    const request = buildDeliveryRequest(content, secret, deps.now());
    const outcome = await deps.client.post(d.callbackUrl, request);
    const now = deps.now();
    const recorded = await record({
      deliveryId: d.id,
      type: d.type,
      subscriptionId: d.subscriptionId,
      attempt: d.attempt,
      result: outcome.result,
      httpStatus: outcome.result.type === "response" ? outcome.result.status : null,
      error: outcome.error,
      responseMs: outcome.responseMs,
      retryAfterMs: parseRetryAfter(outcome.retryAfter, now),
      now,
      random: deps.random(),
      // as the client sends them (it adds the body's length)
      request: { body: request.body, headers: { ...request.headers, "Content-Length": String(Buffer.byteLength(request.body)) } },
    });
    const { plan } = recorded;
    deps.metrics?.attempts.inc({ type: d.type, outcome: plan.outcome });
    deps.metrics?.attemptDuration.observe({ outcome: plan.outcome }, outcome.responseMs / 1000);
    if (recorded.recorded && (plan.delivery.status === "succeeded" || plan.delivery.status === "dead"))
      deps.metrics?.completed.inc({ type: d.type, status: plan.delivery.status });
    if (recorded.subscriptionChanged) {
      deps.log.warn(
        { subscriptionId: d.subscriptionId, status: plan.subscription.status, deliveryId: d.id },
        "subscription status changed by a delivery outcome",
      );
    }
    if (plan.outcome !== "success") {
      deps.log.info(
        { deliveryId: d.id, attempt: d.attempt, outcome: plan.outcome, error: outcome.error, next: plan.delivery.nextAttemptAt },
        "delivery attempt failed",
      );
    }
    deps.onAttempt?.({
      deliveryId: d.id,
      subscriptionId: d.subscriptionId,
      type: d.type,
      attempt: d.attempt,
      claimedAt,
      finishedAt: now,
      outcome: plan.outcome,
      httpStatus: outcome.result.type === "response" ? outcome.result.status : null,
      status: plan.delivery.status,
      nextAttemptAt: plan.delivery.nextAttemptAt,
      recorded: recorded.recorded,
    });
    if (recorded.recorded && plan.delivery.status === "retrying" && plan.delivery.nextAttemptAt) {
      try {
        await enqueueDeliveries(deps.queue, [
          { deliveryId: d.id, attempt: d.attempt + 1, delayMs: (plan.delivery.nextAttemptAt.getTime() - now.getTime()) / scale },
        ]);
      } catch (error) {
        deps.metrics?.enqueueFailures.inc();
        deps.log.warn({ err: error, deliveryId: d.id }, "could not enqueue the retry; the minute job will");
      }
    }
    return { sent: true, attempt: d.attempt, outcome: plan.outcome, status: plan.delivery.status, recorded: recorded.recorded };
  };
}
