import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BENCH_METHODOLOGY_VERSION,
  WORKER_READY_MSG,
  spawnBenchWorker,
  spawnLogged,
  stopChildren,
  waitUntil,
  type LoggedChild,
} from "../bench/benchWorkers.ts";
import {
  REDIS_URL,
  createEventSeeder,
  createOwner,
  createSubscription,
  deletePrefixKeys,
  masterKey,
  randomAddress,
  setupDb,
  startReceiver,
  uniquePrefix,
  type Receiver,
  type TestDb,
} from "./helpers.ts";

// `npm run bench:webhooks` (bench/webhooks.bench.ts) once printed its config and then nothing: it wrote its warm-up
// event before the worker's dispatch cursor existed (a first-ever cursor starts "from now on", so that event was never
// delivered), its worker dispatched another methodology than the bench's rows, the wait for the warm-up had no limit,
// and when stopped it left the worker running. These tests hold the helpers the bench now uses (bench/benchWorkers.ts).

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const benchWorkers = fileURLToPath(new URL("../bench/benchWorkers.ts", import.meta.url));
const quiet = { onLine: () => {} };
const node = (script: string, name = "child") => spawnLogged(name, process.execPath, ["-e", script], quiet);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("waiting for a child's ready line", () => {
  const started: LoggedChild[] = [];
  afterAll(async () => {
    await stopChildren(started, 1_000);
  });

  it("resolves on the JSON line whose msg matches, even written in pieces after other lines", async () => {
    const c = node(`
      const line = JSON.stringify({ level: 30, msg: ${JSON.stringify(WORKER_READY_MSG)}, prefix: "p" });
      console.log(JSON.stringify({ level: 30, msg: "starting" }));
      console.log("not json");
      setTimeout(() => process.stdout.write(line.slice(0, 10)), 100);
      setTimeout(() => process.stdout.write(line.slice(10) + "\\n"), 200);
      setInterval(() => {}, 1000);`);
    started.push(c);
    const fields = await c.waitForLog(WORKER_READY_MSG, 10_000);
    expect(fields).toMatchObject({ msg: WORKER_READY_MSG, prefix: "p" });
    await expect(c.waitForLog(WORKER_READY_MSG, 10)).resolves.toMatchObject({ prefix: "p" }); // already seen
  });

  it("gives up after its limit, naming the child, what it waited for and the child's last output", async () => {
    const c = node(`console.log(JSON.stringify({ level: 30, msg: "still compiling" })); setInterval(() => {}, 1000);`, "worker 1");
    started.push(c);
    await expect(c.waitForLog(WORKER_READY_MSG, 1_000)).rejects.toThrow(
      new RegExp(`gave up waiting for worker 1 \\(pid ${c.child.pid}\\) to log "${WORKER_READY_MSG}" after 1 s; its last output:\\n  info: still compiling`),
    );
  });

  it("gives up as soon as the child exits without the line, with its exit code and output", async () => {
    const c = node(`console.error(JSON.stringify({ level: 60, msg: "invalid worker configuration" })); process.exit(3);`);
    const t0 = performance.now();
    await expect(c.waitForLog(WORKER_READY_MSG, 30_000)).rejects.toThrow(
      /it exited with code 3 first; its last output:\n {2}fatal: invalid worker configuration/,
    );
    expect(performance.now() - t0).toBeLessThan(10_000);
  });

  it("waitUntil: gives up after its limit, naming what it waited for and the state it saw", async () => {
    await expect(waitUntil("the warm-up deliveries", 200, () => false, { everyMs: 20, detail: () => "3 received" })).rejects.toThrow(
      "gave up after 0 s waiting for the warm-up deliveries: 3 received",
    );
    let n = 0;
    await expect(waitUntil("n to reach 3", 5_000, () => ++n >= 3, { everyMs: 1 })).resolves.toBeUndefined();
  });
});

describe("stopping the children", () => {
  let dir: string;
  const grandchildren: number[] = []; // killed here if a failing test left them running
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "bench-workers-"));
  });
  afterAll(() => {
    for (const pid of grandchildren) if (alive(pid)) process.kill(pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("stopChildren: SIGTERM, then SIGKILL for a child that does not exit within the grace period", async () => {
    const polite = node(`setInterval(() => {}, 1000); console.log("up")`, "polite");
    const stubborn = node(`process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("up")`, "stubborn");
    await waitUntil("both children up", 10_000, () => polite.tail().includes("up") && stubborn.tail().includes("up"));
    const killed = await stopChildren([polite, stubborn], 500);
    expect(killed).toEqual(["stubborn"]);
    expect(polite.child.signalCode).toBe("SIGTERM");
    expect(stubborn.child.signalCode).toBe("SIGKILL");
  });

  /** A bench-like parent: starts a child through the helpers, prints its pid, then `then` (wait, or throw). */
  function parent(then: string) {
    const file = path.join(dir, `parent-${Math.random().toString(36).slice(2)}.ts`);
    writeFileSync(
      file,
      `import { spawnLogged, stopChildrenOnExit, type LoggedChild } from ${JSON.stringify(benchWorkers)};
       const children: LoggedChild[] = [];
       stopChildrenOnExit(children, { graceMs: 2_000, log: () => {} });
       children.push(spawnLogged("worker", process.execPath, ["-e", "setInterval(() => {}, 1000)"]));
       console.log("child " + children[0]!.child.pid);
       ${then}`,
    );
    const p = spawn(process.execPath, ["--import", "tsx", file], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (b: Buffer) => (out += b.toString()));
    p.stderr.on("data", (b: Buffer) => (out += b.toString()));
    const exited = new Promise<{ code: number | null }>((resolve) => p.on("exit", (code) => resolve({ code })));
    const childPid = async () => {
      await waitUntil("the parent to print its child's pid", 30_000, () => /child \d+/.test(out), { detail: () => out });
      const pid = Number(/child (\d+)/.exec(out)![1]);
      grandchildren.push(pid);
      return pid;
    };
    return { p, exited, childPid, output: () => out };
  }

  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "%s to the bench stops its child, then the bench exits with %i",
    async (signal, code) => {
      const run = parent("setInterval(() => {}, 1000);");
      const pid = await run.childPid();
      expect(alive(pid)).toBe(true);
      run.p.kill(signal);
      expect(await run.exited).toEqual({ code });
      await waitUntil(`child ${pid} gone`, 5_000, () => !alive(pid));
    },
    60_000,
  );

  it("an error in the bench kills its child too", async () => {
    const run = parent(`setTimeout(() => { throw new Error("boom"); }, 100);`);
    const pid = await run.childPid();
    expect((await run.exited).code).toBe(1);
    expect(run.output()).toContain("boom");
    await waitUntil(`child ${pid} gone`, 5_000, () => !alive(pid));
  }, 60_000);
});

describe("the bench's worker process, on a real database and Redis", () => {
  let db: TestDb;
  let receiver: Receiver;
  const prefix = uniquePrefix("bench");
  const started: LoggedChild[] = [];

  beforeAll(async () => {
    db = await setupDb();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await stopChildren(started, 5_000);
    await receiver?.close();
    await deletePrefixKeys(prefix);
    await db?.drop();
  });

  it("an event of the bench's methodology written right after the worker's ready line is delivered to every subscription", async () => {
    const owner = await createOwner(db.pool);
    const agent = { id: "bench-agent", wallet: randomAddress() };
    for (let i = 0; i < 3; i++) await createSubscription(db.pool, { owner, callbackUrl: receiver.url("ok"), agentId: agent.id });
    const worker = spawnBenchWorker({ repoRoot, databaseUrl: db.url, redisUrl: REDIS_URL, prefix, masterKey: masterKey.toString("hex"), concurrency: 4 });
    started.push(worker);
    await worker.waitForLog(WORKER_READY_MSG, 90_000);
    // No other wait: "ready" means the dispatch cursor exists, so this event is past it.
    const { ids } = await createEventSeeder(db.pool, [agent]).insert([{ from: agent.wallet, to: randomAddress(), amount: 1_000n }], {
      version: BENCH_METHODOLOGY_VERSION,
    });
    expect(ids).toHaveLength(1);
    await waitUntil("3 deliveries of the event", 20_000, () => receiver.requests.length >= 3, {
      detail: async () => `${receiver.requests.length} received; worker output:\n  ${worker.tail()}`,
    });
    expect(receiver.requests.map((r) => r.headers["svc-event-id"])).toEqual(Array(3).fill(String(ids[0])));
    expect(receiver.requests.map((r) => (r.body.data as { methodology_version?: string }).methodology_version)).toEqual(
      Array(3).fill(BENCH_METHODOLOGY_VERSION),
    );
    expect(await stopChildren([worker], 20_000)).toEqual([]); // stops on SIGTERM
    expect(worker.child.exitCode).toBe(0);
  }, 120_000);
});
