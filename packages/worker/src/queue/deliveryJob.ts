/** Payload of a delivery job: which delivery, and which attempt (1-based) this job is allowed to make. */
export interface DeliveryJobData {
  deliveryId: string;
  attempt: number;
}

/**
 * One job id per (delivery, attempt): adding the same attempt twice (dispatcher, NOTIFY, minute job,
 * several workers) is a no-op while the job exists, and a stale job for an attempt already made is
 * skipped by the processor's `attempts` guard. BullMQ forbids `:` in custom ids, hence the dot.
 */
export function deliveryJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}.${attempt}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isDeliveryId(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

export function parseDeliveryJob(data: unknown): DeliveryJobData | null {
  const d = data as Partial<DeliveryJobData> | null;
  if (!d || !isDeliveryId(d.deliveryId) || !Number.isInteger(d.attempt) || (d.attempt as number) < 1) return null;
  return { deliveryId: d.deliveryId, attempt: d.attempt as number };
}
