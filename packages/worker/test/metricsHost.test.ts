import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseWorkerEnv } from "../src/env.ts";
import type { RunningWorker } from "../src/startWorker.ts";
import { deletePrefixKeys, setupDb, startTestWorker, uniquePrefix, type TestDb } from "./helpers.ts";

// The metrics server binds loopback unless told otherwise (issue 14 §7). On Linux all of 127.0.0.0/8 is loopback, so a
// server bound to 0.0.0.0 answers on 127.0.0.2 while one bound to 127.0.0.1 does not: that tells the two apart
// without needing another network interface.
async function reaches(host: string, port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://${host}:${port}/metrics`, { signal: AbortSignal.timeout(5_000) });
    await res.text();
    return res.status === 200;
  } catch {
    return false;
  }
}

describe.runIf(process.platform === "linux")("worker metrics server address", () => {
  let db: TestDb;
  const prefixes: string[] = [];
  const workers: RunningWorker[] = [];
  const start = async (metricsHost?: string) => {
    const prefix = uniquePrefix("metrics-host");
    prefixes.push(prefix);
    const worker = await startTestWorker(db, {
      prefix,
      metricsPort: 0,
      ...(metricsHost === undefined ? {} : { metricsHost }),
      dispatch: { enabled: false },
      deliver: false,
    });
    workers.push(worker);
    return worker.metricsPort!;
  };

  beforeAll(async () => {
    db = await setupDb();
  });
  afterAll(async () => {
    for (const w of workers) await w.stop(1_000);
    for (const p of prefixes) await deletePrefixKeys(p);
    await db?.drop();
  });

  it("binds 127.0.0.1 by default, from the environment's default and without any host given", async () => {
    const env = parseWorkerEnv({ SECRETS_MASTER_KEY: "07".repeat(32) });
    expect(env.WORKER_METRICS_HOST).toBe("127.0.0.1");
    for (const port of [await start(env.WORKER_METRICS_HOST), await start()]) {
      expect(await reaches("127.0.0.1", port)).toBe(true);
      expect(await reaches("127.0.0.2", port)).toBe(false);
    }
  });

  it("binds the configured WORKER_METRICS_HOST (0.0.0.0 answers on every address)", async () => {
    const env = parseWorkerEnv({ SECRETS_MASTER_KEY: "07".repeat(32), WORKER_METRICS_HOST: "0.0.0.0" });
    const port = await start(env.WORKER_METRICS_HOST);
    expect(await reaches("127.0.0.1", port)).toBe(true);
    expect(await reaches("127.0.0.2", port)).toBe(true);
  });
});
