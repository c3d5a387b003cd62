import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { AnvilStartError } from "../src/errors.ts";
import { resolveAnvilBinary } from "../src/resolveAnvilBinary.ts";
import { startAnvil, type AnvilInstance } from "../src/startAnvil.ts";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const waitDead = async (pid: number, ms = 5_000) => {
  const end = Date.now() + ms;
  while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
};
const rpc = async (url: string, method: string) =>
  (
    (await (
      await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }) })
    ).json()) as { result: string }
  ).result;

const started: AnvilInstance[] = [];
afterAll(async () => {
  await Promise.all(started.map((a) => a.stop()));
});

describe("startAnvil", () => {
  it("resolves the platform binary package (linux-x64 → anvil-linux-amd64)", () => {
    if (process.platform === "linux" && process.arch === "x64") expect(resolveAnvilBinary()).toMatch(/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
    expect(resolveAnvilBinary("plan9", "mips")).toBe("anvil"); // unknown platform → PATH
  });

  it("starts on a free port, answers chain id 31337 on T4, and stop() leaves no process", async () => {
    const lines: string[] = [];
    const a = await startAnvil({ port: 0, log: (l) => lines.push(l) });
    started.push(a);
    expect(a.port).toBeGreaterThan(0);
    expect(a.url).toBe(`http://127.0.0.1:${a.port}`);
    expect(await rpc(a.url, "eth_chainId")).toBe("0x7a69");
    expect(lines.some((l) => l.includes(`Listening on 127.0.0.1:${a.port}`))).toBe(true);
    expect(alive(a.pid)).toBe(true);
    await a.stop();
    expect(alive(a.pid)).toBe(false);
    await a.stop(); // idempotent
  });

  it("two devnets run side by side (block time option)", async () => {
    const [a, b] = await Promise.all([startAnvil({}), startAnvil({ blockTime: 1 })]);
    started.push(a, b);
    expect(a.port).not.toBe(b.port);
    await Promise.all([a.stop(), b.stop()]);
    expect([alive(a.pid), alive(b.pid)]).toEqual([false, false]);
  });

  it("fails with AnvilStartError for a missing binary or a busy port", async () => {
    await expect(startAnvil({ binary: "/nonexistent/anvil" })).rejects.toBeInstanceOf(AnvilStartError);
    const a = await startAnvil({});
    started.push(a);
    await expect(startAnvil({ port: a.port, readyTimeoutMs: 5_000 })).rejects.toThrow(AnvilStartError);
    await a.stop();
  });

  for (const mode of ["exit", "sigterm", "throw", "sigkill"] as const) {
    it(`kills anvil when the parent process ends (${mode})`, async () => {
      const fixture = fileURLToPath(new URL("./fixtures/startAnvilThenExit.ts", import.meta.url));
      const child = spawn(process.execPath, ["--import", "tsx", fixture, mode], { stdio: ["ignore", "pipe", "ignore"] });
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once("line", resolve);
        child.once("exit", () => reject(new Error("fixture exited before printing")));
      });
      const { pid } = JSON.parse(first) as { pid: number };
      expect(alive(pid)).toBe(true);
      if (mode === "sigterm") child.kill("SIGTERM");
      if (mode === "sigkill") child.kill("SIGKILL"); // no exit hook runs: only the watchdog can stop anvil
      await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.once("exit", r)));
      expect(await waitDead(pid)).toBe(true);
    });
  }
});
