import { describe, expect, it } from "vitest";
import { parseWorkerEnv } from "./env.ts";
import { deliveryJobId, parseDeliveryJob } from "./queue/deliveryJob.ts";

const key = Buffer.alloc(32, 7).toString("base64");

describe("worker configuration", () => {
  it("requires SECRETS_MASTER_KEY (32 bytes) and has production-safe defaults", () => {
    expect(() => parseWorkerEnv({})).toThrow(/SECRETS_MASTER_KEY/);
    expect(() => parseWorkerEnv({ SECRETS_MASTER_KEY: "c2hvcnQ=" })).toThrow(/32 bytes/);
    const env = parseWorkerEnv({ SECRETS_MASTER_KEY: key, NODE_ENV: "production" });
    expect(env).toMatchObject({
      production: true,
      METHODOLOGY_VERSION: "v0.3",
      WORKER_METRICS_PORT: 9464,
      WORKER_METRICS_HOST: "127.0.0.1",
      DELIVERY_TIMEOUT_MS: 10_000,
      DELIVERY_LEASE_MS: 30_000,
      MAINTENANCE_INTERVAL_MS: 60_000,
      DISPATCH_ENABLED: true,
      WORKER_CONCURRENCY: 32,
    });
    expect(env.masterKey).toHaveLength(32);
    expect(parseWorkerEnv({ SECRETS_MASTER_KEY: "07".repeat(32), DISPATCH_ENABLED: "false" }).DISPATCH_ENABLED).toBe(false);
  });
  it("refuses a claim lease that is not longer than the timeout", () => {
    expect(() => parseWorkerEnv({ SECRETS_MASTER_KEY: key, DELIVERY_TIMEOUT_MS: "5000", DELIVERY_LEASE_MS: "5000" })).toThrow(/LEASE/);
  });
  it("job ids: one per (delivery, attempt), no colon (BullMQ forbids it); payloads validated", () => {
    const id = "0b7c2f7e-1111-4222-8333-944455556666";
    expect(deliveryJobId(id, 3)).toBe(`${id}.3`);
    expect(parseDeliveryJob({ deliveryId: id, attempt: 2 })).toEqual({ deliveryId: id, attempt: 2 });
    expect(parseDeliveryJob({ deliveryId: "x", attempt: 2 })).toBeNull();
    expect(parseDeliveryJob({ deliveryId: id, attempt: 0 })).toBeNull();
  });
});
