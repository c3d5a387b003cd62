import { describe, expect, it } from "vitest";
import { coalesceRuns } from "./coalesceRuns.ts";

/** A task whose runs finish only when the test releases them. */
function gatedTask(fail: (run: number) => boolean = () => false) {
  const releases: (() => void)[] = [];
  let started = 0;
  const task = () => {
    const run = ++started;
    return new Promise<void>((resolve, reject) => releases.push(() => (fail(run) ? reject(new Error(`run ${run} failed`)) : resolve())));
  };
  const releaseNext = async () => {
    releases.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { task, releaseNext, started: () => started };
}

describe("coalesceRuns", () => {
  it("runs one at a time: calls during a run coalesce into exactly one more run", async () => {
    const gate = gatedTask();
    const runs = coalesceRuns(gate.task, () => {});
    runs.run();
    runs.run();
    runs.run();
    runs.run();
    expect(gate.started()).toBe(1);
    await gate.releaseNext();
    expect(gate.started()).toBe(2);
    await gate.releaseNext();
    const idle = runs.idle();
    await idle;
    expect(gate.started()).toBe(2);
    runs.run();
    expect(gate.started()).toBe(3);
    await gate.releaseNext();
    await runs.idle();
  });

  it("reports a failed run and still makes the run asked for meanwhile", async () => {
    const gate = gatedTask((run) => run === 1);
    const errors: string[] = [];
    const runs = coalesceRuns(gate.task, (error) => errors.push(error.message));
    runs.run();
    runs.run();
    await gate.releaseNext();
    expect(errors).toEqual(["run 1 failed"]);
    expect(gate.started()).toBe(2);
    await gate.releaseNext();
    await runs.idle();
    expect(errors).toEqual(["run 1 failed"]);
  });

  it("idle() waits for the run in progress and the one asked for after it", async () => {
    const gate = gatedTask();
    const runs = coalesceRuns(gate.task, () => {});
    await runs.idle();
    runs.run();
    runs.run();
    let idle = false;
    const waiting = runs.idle().then(() => (idle = true));
    await gate.releaseNext();
    expect(idle).toBe(false);
    await gate.releaseNext();
    await waiting;
    expect(idle).toBe(true);
  });

  it("stop() lets the run in progress finish, drops the re-run asked for, and refuses new runs", async () => {
    const gate = gatedTask();
    const runs = coalesceRuns(gate.task, () => {});
    runs.run();
    runs.run(); // a re-run is pending
    let stopped = false;
    const stopping = runs.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    await gate.releaseNext();
    await stopping;
    expect(gate.started()).toBe(1);
    runs.run();
    expect(gate.started()).toBe(1);
  });
});
