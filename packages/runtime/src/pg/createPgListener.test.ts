import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPgListener, type PgListener } from "./createPgListener.ts";

// The one reconnecting LISTEN, against the real PostgreSQL: a dropped connection (pg_terminate_backend) is made again
// with backoff, onConnect runs after each connection, and a failing onConnect counts as a failed connection.

const url = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const silent = { info() {}, warn() {} };
const listeners: PgListener[] = [];
afterAll(async () => {
  for (const l of listeners) await l.close();
});

async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text, values);
  } finally {
    await c.end();
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe("createPgListener", () => {
  it("reconnects with backoff after the connection is killed, runs onConnect each time, and hears NOTIFY again", async () => {
    const channel = `listener_test_${randomBytes(4).toString("hex")}`;
    const applicationName = `${channel}_app`;
    const heard: string[] = [];
    const connects: boolean[] = [];
    const listener = createPgListener({
      channels: [channel],
      databaseUrl: url,
      applicationName,
      log: silent,
      backoff: { baseMs: 20, maxMs: 100 },
      onNotification: (ch, payload) => ch === channel && heard.push(payload),
      onConnect: ({ first }) => void connects.push(first),
    });
    listeners.push(listener);
    await listener.ready;
    expect(connects).toEqual([true]);
    expect(listener.isListening()).toBe(true);
    await sql("SELECT pg_notify($1, 'one')", [channel]);
    await until(() => heard.length === 1, "the first notification");

    await sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [applicationName]);
    await until(() => connects.length === 2, "the reconnect");
    expect(connects).toEqual([true, false]);
    expect(listener.reconnects()).toBe(1);
    await sql("SELECT pg_notify($1, 'two')", [channel]);
    await until(() => heard.length === 2, "the notification after the reconnect");
    expect(heard).toEqual(["one", "two"]);

    await listener.close();
    expect(listener.isListening()).toBe(false);
    expect((await sql("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1", [applicationName])).rows[0].n).toBe(0);
  });

  it("treats a failing onConnect as a failed connection: ready waits for one that succeeds", async () => {
    const channel = `listener_test_${randomBytes(4).toString("hex")}`;
    let attempts = 0;
    const listener = createPgListener({
      channels: [channel],
      databaseUrl: url,
      log: silent,
      backoff: { baseMs: 10, maxMs: 50 },
      onNotification: () => {},
      onConnect: () => {
        if (++attempts < 3) throw new Error("not yet");
      },
    });
    listeners.push(listener);
    await listener.ready;
    expect(attempts).toBe(3);
    expect(listener.reconnects()).toBe(0);
    await listener.close();
  });
});
